using StackExchange.Redis;

namespace Cubby.Load.Workloads;

/// <summary>
/// StackExchange.Redis, the .NET Redis client most apps use: <c>StringSetAsync</c> with the workload's expiry and
/// <c>StringGetAsync</c> on one <see cref="ConnectionMultiplexer"/> shared by every caller, against any server.
/// </summary>
internal sealed class StackExchangeRedisTarget : ICacheTarget
{
    private readonly ConnectionMultiplexer _connection;
    private readonly IDatabase _database;
    private readonly RedisKey[] _keys;
    private readonly RedisValue _value;
    private readonly TimeSpan _expiry;

    private StackExchangeRedisTarget(ConnectionMultiplexer connection, WorkloadData data)
    {
        _connection = connection;
        _database = connection.GetDatabase();
        _keys = [.. data.Keys.Select(static key => (RedisKey)key)];
        _value = data.Value;
        _expiry = TimeSpan.FromMilliseconds(data.TimeToLiveMs);
    }

    public static async Task<StackExchangeRedisTarget> ConnectAsync(int port, WorkloadData data)
    {
        var options = new ConfigurationOptions { EndPoints = { { "127.0.0.1", port } }, AbortOnConnectFail = true, ConnectTimeout = 10_000 };
        return new StackExchangeRedisTarget(await ConnectionMultiplexer.ConnectAsync(options).ConfigureAwait(false), data);
    }

    public ICacheCaller CreateCaller() => new Caller(this);

    public void Dispose() => _connection.Dispose();

    private sealed class Caller(StackExchangeRedisTarget target) : ICacheCaller
    {
        public async ValueTask SetAsync(int key)
        {
            if (!await target._database.StringSetAsync(target._keys[key], target._value, target._expiry).ConfigureAwait(false))
            {
                throw new InvalidOperationException($"SET {target._keys[key]} was not stored.");
            }
        }

        public async ValueTask<bool> GetAsync(int key) => !(await target._database.StringGetAsync(target._keys[key]).ConfigureAwait(false)).IsNull;
    }
}
