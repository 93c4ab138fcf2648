using System.Buffers.Text;
using System.Diagnostics;
using System.Text;
using Cubby.Client;
using Microsoft.Extensions.DependencyInjection;
using StackExchange.Redis;

namespace Cubby.Load.Faults;

/// <summary>
/// What the clients do while faults run, all of it kept in a <see cref="ClientHistory"/>: registers written through
/// every silo's RESP door and through a gateway client with a strict near cache, and read through all of them; a counter
/// raised with INCR, accounts that MULTI transactions move amounts between and read together, and a key raised through
/// WATCH, each through every door. Redis clients give up on a call after two seconds; the gateway client after five.
/// </summary>
internal sealed class FaultWorkload : IAsyncDisposable
{
    public const string NearCache = "the gateway client's near cache";
    public const long AccountBalance = 1000;

    private const string CounterKey = "counter";
    private const string WatchedKey = "watched";
    private const int Accounts = 8;
    // Longer than what the silos and the gateway client give a call (FaultCluster.CallTimeout, OperationTimeout): a
    // client that gives up sooner may see a write it gave up on land after its later ones (docs/faults.md).
    private static readonly TimeSpan Timeout = FaultCluster.CallTimeout + TimeSpan.FromSeconds(1);
    private static readonly TimeSpan OperationTimeout = TimeSpan.FromSeconds(5);
    private static readonly TimeSpan GatewayTimeout = OperationTimeout + TimeSpan.FromSeconds(1);

    private readonly ConnectionMultiplexer[] _doors;
    private readonly ServiceProvider _app;
    private readonly ICubbyClient _gateway;
    private readonly int _registers;
    private readonly CancellationTokenSource _stop = new();
    private Task[] _workers = [];

    private FaultWorkload(ConnectionMultiplexer[] doors, ServiceProvider app, int registers)
    {
        (_doors, _app, _registers) = (doors, app, registers);
        _gateway = app.GetRequiredService<ICubbyClient>();
    }

    public ClientHistory History { get; } = new();

    /// <summary>What the accounts add up to before any transfer.</summary>
    public static long Total => Accounts * AccountBalance;

    /// <summary>Connects to every silo of <paramref name="silos"/> and sets the accounts' opening balances.</summary>
    public static async Task<FaultWorkload> StartAsync(IReadOnlyList<NodeSilo> silos, int registers)
    {
        var doors = await Task.WhenAll(silos.Select(static silo => ConnectionMultiplexer.ConnectAsync(new ConfigurationOptions
        {
            EndPoints = { { silo.Address, NodeSilo.RespPort } },
            AbortOnConnectFail = false,
            ConnectTimeout = (int)Timeout.TotalMilliseconds,
            SyncTimeout = (int)Timeout.TotalMilliseconds,
            AsyncTimeout = (int)Timeout.TotalMilliseconds,
        }))).ConfigureAwait(false);

        // A gateway client with a strict near cache, given every silo's gateway: its writes and reads are checked too.
        var services = new ServiceCollection();
        services.AddCubbyClient(options =>
        {
            foreach (var silo in silos)
            {
                options.Endpoints.Add(silo.Gateway);
            }

            options.NearCache.Enabled = true;
            options.OperationTimeout = OperationTimeout;
        });
        var workload = new FaultWorkload(doors, services.BuildServiceProvider(), registers);
        var database = doors[0].GetDatabase();
        for (var account = 0; account < Accounts; account++)
        {
            await database.StringSetAsync(Account(account), AccountBalance).ConfigureAwait(false);
        }

        workload.Run();
        return workload;
    }

    /// <summary>Stops every client and waits for their calls under way.</summary>
    public async Task StopAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        await Task.WhenAll(_workers).ConfigureAwait(false);
    }

    /// <summary>Reads back, once the cluster answers again, what the checker compares the history with.</summary>
    public async Task<HistoryReport> CheckAsync()
    {
        var final = new Dictionary<int, long>();
        for (var register = 0; register < _registers; register++)
        {
            final[register] = await ReadBackAsync(db => db.StringGetAsync(Key(register))).ConfigureAwait(false);
        }

        var counter = await ReadBackAsync(static db => db.StringGetAsync(CounterKey)).ConfigureAwait(false);
        var watched = await ReadBackAsync(static db => db.StringGetAsync(WatchedKey)).ConfigureAwait(false);
        long total = 0;
        for (var account = 0; account < Accounts; account++)
        {
            total += await ReadBackAsync(db => db.StringGetAsync(Account(account))).ConfigureAwait(false);
        }

        return HistoryChecker.Check(History, final, counter, watched, Total, total);
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        foreach (var door in _doors)
        {
            await door.DisposeAsync().ConfigureAwait(false);
        }

        await _app.DisposeAsync().ConfigureAwait(false);
        _stop.Dispose();
    }

    private static string Key(int register) => $"register:{register}";

    private static string Account(int account) => $"account:{account}";

    private static string Door(int node) => $"node {node}";

    private static bool Failed(Exception exception) => exception is RedisException or TimeoutException;

    private void Run()
    {
        var stop = _stop.Token;
        var workers = new List<Task>();
        for (var register = 0; register < _registers; register++)
        {
            // Round the silos' doors and the gateway client.
            var via = register % (_doors.Length + 1);
            workers.Add(via < _doors.Length ? WriteAsync(via, register, stop) : WriteThroughGatewayAsync(register, stop));
        }

        for (var node = 0; node < _doors.Length; node++)
        {
            workers.Add(ReadAsync(node, 0, stop));
            workers.Add(ReadAsync(node, 1, stop));
            workers.Add(IncrementAsync(node, stop));
            workers.Add(TransferAsync(node, stop));
            workers.Add(SnapshotAsync(node, stop));
            workers.Add(WatchAsync(node, stop));
        }

        workers.Add(ReadNearAsync(0, stop));
        workers.Add(ReadNearAsync(1, stop));
        _workers = [.. workers];
    }

    private async Task WriteAsync(int node, int register, CancellationToken stop)
    {
        var database = _doors[node].GetDatabase();
        for (long value = 1; !stop.IsCancellationRequested; value++)
        {
            var sent = Stopwatch.GetTimestamp();
            long? acknowledged = null;
            try
            {
                await database.StringSetAsync(Key(register), value).ConfigureAwait(false);
                acknowledged = Stopwatch.GetTimestamp();
            }
            catch (Exception exception) when (Failed(exception))
            {
                await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
            }

            History.Wrote(register, value, sent, acknowledged, Door(node));
        }
    }

    private async Task WriteThroughGatewayAsync(int register, CancellationToken stop)
    {
        for (long value = 1; !stop.IsCancellationRequested; value++)
        {
            var sent = Stopwatch.GetTimestamp();
            long? acknowledged = null;
            try
            {
                using var limit = new CancellationTokenSource(GatewayTimeout);
                await _gateway.PutAsync(Key(register), Encoding.ASCII.GetBytes($"{value}"), null, limit.Token).ConfigureAwait(false);
                acknowledged = Stopwatch.GetTimestamp();
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
            }

            History.Wrote(register, value, sent, acknowledged, NearCache);
        }
    }

    private async Task ReadAsync(int node, int reader, CancellationToken stop)
    {
        var database = _doors[node].GetDatabase();
        var random = new Random((node * 100) + reader);
        while (!stop.IsCancellationRequested)
        {
            var register = random.Next(_registers);
            var began = Stopwatch.GetTimestamp();
            try
            {
                var value = await database.StringGetAsync(Key(register)).ConfigureAwait(false);
                History.Read(register, value.IsNull ? 0 : (long)value, began, Stopwatch.GetTimestamp(), Door(node));
            }
            catch (Exception exception) when (Failed(exception))
            {
                await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
            }
        }
    }

    private async Task ReadNearAsync(int reader, CancellationToken stop)
    {
        var random = new Random(1000 + reader);
        for (var read = 1; !stop.IsCancellationRequested; read++)
        {
            var register = random.Next(_registers);
            var began = Stopwatch.GetTimestamp();
            try
            {
                using var limit = new CancellationTokenSource(GatewayTimeout);
                var value = await _gateway.GetAsync(Key(register), limit.Token).ConfigureAwait(false);
                History.Read(register, value is not null && Utf8Parser.TryParse(value, out long number, out _) ? number : 0, began, Stopwatch.GetTimestamp(), NearCache);
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
            }

            // Near-cache hits complete at once: a pause now and then leaves the writers the cores.
            if (read % 256 == 0)
            {
                await Task.Delay(1, CancellationToken.None).ConfigureAwait(false);
            }
        }
    }

    private async Task IncrementAsync(int node, CancellationToken stop)
    {
        var database = _doors[node].GetDatabase();
        while (!stop.IsCancellationRequested)
        {
            try
            {
                History.Incremented(await database.StringIncrementAsync(CounterKey).ConfigureAwait(false), Stopwatch.GetTimestamp());
            }
            catch (Exception exception) when (Failed(exception))
            {
                await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
            }
        }
    }

    /// <summary>Moves a small amount from one account to another in MULTI/EXEC: both changes or neither.</summary>
    private async Task TransferAsync(int node, CancellationToken stop)
    {
        var database = _doors[node].GetDatabase();
        var random = new Random(2000 + node);
        while (!stop.IsCancellationRequested)
        {
            var from = random.Next(Accounts);
            var to = (from + 1 + random.Next(Accounts - 1)) % Accounts;
            var amount = 1 + random.Next(10);
            var sent = Stopwatch.GetTimestamp();
            string outcome;
            try
            {
                var transaction = database.CreateTransaction();
                var debit = transaction.StringDecrementAsync(Account(from), amount);
                var credit = transaction.StringIncrementAsync(Account(to), amount);
                outcome = await transaction.ExecuteAsync().ConfigureAwait(false) ? Transfer.Kept : "not committed";
                if (outcome == Transfer.Kept)
                {
                    await Task.WhenAll(debit, credit).ConfigureAwait(false);
                }
            }
            catch (Exception exception) when (Failed(exception) || exception is TaskCanceledException)
            {
                outcome = exception.Message.Split('\n', 2)[0];
                await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
            }

            History.Transferred(new Transfer(from, to, amount, sent, Stopwatch.GetTimestamp(), outcome, Door(node)));
        }
    }

    /// <summary>Reads every account in one MULTI/EXEC: what they add up to.</summary>
    private async Task SnapshotAsync(int node, CancellationToken stop)
    {
        var database = _doors[node].GetDatabase();
        while (!stop.IsCancellationRequested)
        {
            var began = Stopwatch.GetTimestamp();
            try
            {
                var transaction = database.CreateTransaction();
                var balances = Enumerable.Range(0, Accounts).Select(account => transaction.StringGetAsync(Account(account))).ToArray();
                if (await transaction.ExecuteAsync().ConfigureAwait(false))
                {
                    var values = await Task.WhenAll(balances).ConfigureAwait(false);
                    History.Snapshotted([.. values.Select(static value => (long)value)], began, Stopwatch.GetTimestamp(), Door(node));
                }
            }
            catch (Exception exception) when (Failed(exception) || exception is TaskCanceledException)
            {
                await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
            }

            await Task.Delay(10, CancellationToken.None).ConfigureAwait(false);
        }
    }

    /// <summary>Raises the watched key by one: WATCH, GET, MULTI, SET, EXEC, which must fail when another changed it between.</summary>
    private async Task WatchAsync(int node, CancellationToken stop)
    {
        var database = _doors[node].GetDatabase();
        while (!stop.IsCancellationRequested)
        {
            try
            {
                var read = await database.StringGetAsync(WatchedKey).ConfigureAwait(false);
                var next = (read.IsNull ? 0 : (long)read) + 1;
                var transaction = database.CreateTransaction();
                transaction.AddCondition(read.IsNull ? Condition.KeyNotExists(WatchedKey) : Condition.StringEqual(WatchedKey, read));
                var set = transaction.StringSetAsync(WatchedKey, next);
                if (await transaction.ExecuteAsync().ConfigureAwait(false))
                {
                    await set.ConfigureAwait(false);
                    History.Committed(next, Stopwatch.GetTimestamp());
                }
            }
            catch (Exception exception) when (Failed(exception) || exception is TaskCanceledException)
            {
                await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
            }
        }
    }

    /// <summary>A number read through any door that answers, tried for up to a minute.</summary>
    private async Task<long> ReadBackAsync(Func<IDatabase, Task<RedisValue>> read)
    {
        var deadline = Stopwatch.StartNew();
        for (var attempt = 0; ; attempt++)
        {
            try
            {
                var value = await read(_doors[attempt % _doors.Length].GetDatabase()).ConfigureAwait(false);
                return value.IsNull ? 0 : (long)value;
            }
            catch (Exception exception) when (Failed(exception) && deadline.Elapsed < TimeSpan.FromMinutes(1))
            {
                await Task.Delay(200).ConfigureAwait(false);
            }
        }
    }
}
