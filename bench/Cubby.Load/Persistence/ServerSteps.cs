using System.Diagnostics;
using System.Globalization;
using Cubby.Load.Measurement;
using StackExchange.Redis;

namespace Cubby.Load.Persistence;

/// <summary>
/// What the <c>persistence</c> command does to a server on its folder: start it and time its load, write entries, wait
/// until what it wrote is on disk, stop it with SIGTERM, and measure the files it keeps.
/// </summary>
internal static class ServerSteps
{
    /// <summary>How long a folder's size must stay the same, with nothing left to flush, for its server to be settled.</summary>
    private static readonly TimeSpan SettledFor = TimeSpan.FromSeconds(1.5);

    private static readonly TimeSpan SettleLimit = TimeSpan.FromMinutes(3);

    private static readonly TimeSpan LoadLimit = TimeSpan.FromMinutes(5);

    /// <summary>The <c>INFO persistence</c> fields (Redis's, and Cubby's where it has them) that are above 0 while files are still being written.</summary>
    private static readonly string[] BusyFields = ["aof_rewrite_in_progress", "aof_rewrite_scheduled", "rdb_bgsave_in_progress", "aof_buffer_length", "aof_pending_bio_fsync"];

    /// <summary>
    /// Starts <paramref name="setup"/> on <paramref name="folder"/> and times it from just before the process starts
    /// until it answers PING, and until DBSIZE reaches <paramref name="expected"/> (<see cref="LoadProbe"/>; or until
    /// <see cref="LoadLimit"/> passes: the row then shows the count it stayed at).
    /// </summary>
    public static async Task<(ServerProcess Server, LoadRow Row)> StartTimedAsync(
        ServerSetup setup, ToolSet tools, string folder, string stoppedBy, DiskUse files, long expected)
    {
        var port = ServerProcess.FreePort();
        using var stop = new CancellationTokenSource();
        var clock = Stopwatch.StartNew();
        var watch = Task.Run(() => LoadProbe.WatchAsync(port, expected, clock, LoadLimit, stop.Token));
        ServerProcess server;
        try
        {
            server = await ServerProcess.StartAsync(setup.Kind, tools, setup.Arguments(folder), port: port).ConfigureAwait(false);
        }
        catch
        {
            await stop.CancelAsync().ConfigureAwait(false);
            await watch.ContinueWith(static _ => { }, TaskScheduler.Default).ConfigureAwait(false);
            throw;
        }

        try
        {
            var (ping, loaded, entries) = await watch.ConfigureAwait(false);
            var cpu = server.CpuSeconds;
            await using var connection = await server.ConnectAsync(TimeSpan.FromSeconds(60)).ConfigureAwait(false);
            var info = await InfoFields.ReadAsync(connection.GetDatabase(), "persistence").ConfigureAwait(false);
            double? reported = info.ContainsKey("cubby_load_ms") ? InfoFields.Number(info, "cubby_load_ms") / 1e3 : null;
            return (server, new LoadRow(setup.Name, stoppedBy, files, ping, loaded, entries, expected, cpu, reported));
        }
        catch
        {
            server.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Writes <paramref name="entries"/> distinct keys (<c>key:</c> and 12 digits, as redis-benchmark's <c>-r</c> names
    /// them) of <paramref name="valueBytes"/> random bytes each, pipelined, and checks that DBSIZE then counts exactly
    /// them. Random values, so that no server's file is smaller for compressing them (Redis's RDB does, with LZF).
    /// </summary>
    public static async Task<TimeSpan> FillAsync(ServerProcess server, int entries, int valueBytes)
    {
        const int Batch = 10_000;
        var pool = new byte[1 << 20];
#pragma warning disable CA5394 // Not for security: the same incompressible bytes on every run.
        new Random(20261207).NextBytes(pool);
#pragma warning restore CA5394
        await using var connection = await server.ConnectAsync(TimeSpan.FromSeconds(60)).ConfigureAwait(false);
        var database = connection.GetDatabase();
        var clock = Stopwatch.StartNew();
        var writes = new List<Task<bool>>(Batch);
        for (var start = 0; start < entries; start += Batch)
        {
            writes.Clear();
            for (var i = start; i < Math.Min(entries, start + Batch); i++)
            {
                var offset = (int)((long)i * 7_919 % (pool.Length - valueBytes));
                writes.Add(database.StringSetAsync(string.Create(CultureInfo.InvariantCulture, $"key:{i:D12}"), pool.AsMemory(offset, valueBytes)));
            }

            foreach (var written in await Task.WhenAll(writes).ConfigureAwait(false))
            {
                if (!written)
                {
                    throw new HarnessException($"{server.Kind} did not store a SET while being filled.");
                }
            }
        }

        var took = clock.Elapsed;
        var count = await DbSizeAsync(database).ConfigureAwait(false);
        if (count != entries)
        {
            throw new HarnessException($"{server.Kind} holds {count:N0} keys after {entries:N0} distinct keys were written.");
        }

        return took;
    }

    /// <summary>
    /// Waits until nothing the server wrote is still on its way to <paramref name="folder"/>: no AOF rewrite, background
    /// save or unflushed buffer in <c>INFO persistence</c>, and the folder's size unchanged for <see cref="SettledFor"/>
    /// (a Cubby silo writing its shards whole as its changes file begins again changes it).
    /// </summary>
    public static async Task SettleAsync(ServerProcess server, string folder)
    {
        await using var connection = await server.ConnectAsync(TimeSpan.FromSeconds(60)).ConfigureAwait(false);
        var database = connection.GetDatabase();
        var clock = Stopwatch.StartNew();
        var (size, since) = (-1L, TimeSpan.Zero);
        while (clock.Elapsed < SettleLimit)
        {
            var info = await InfoFields.ReadAsync(database, "persistence").ConfigureAwait(false);
            var busy = BusyFields.Any(field => InfoFields.Number(info, field) > 0);
            var now = DiskUse.Of(folder).Bytes;
            if (busy || now != size)
            {
                (size, since) = (now, clock.Elapsed);
            }
            else if (clock.Elapsed - since >= SettledFor)
            {
                return;
            }

            await Task.Delay(250).ConfigureAwait(false);
        }

        throw new HarnessException($"{server.Kind}'s folder {folder} was still changing after {SettleLimit.TotalMinutes:0} minutes.");
    }

    /// <summary>Stops the server with SIGTERM and waits for it to exit; how long that took.</summary>
    public static async Task<TimeSpan> TerminateAsync(ServerProcess server)
    {
        var clock = Stopwatch.StartNew();
        var (exitCode, output, errors) = await ExternalProcess.RunAsync(
            ExternalProcess.Which("kill") ?? "kill", ["-TERM", server.ProcessId.ToString(CultureInfo.InvariantCulture)], TimeSpan.FromSeconds(10)).ConfigureAwait(false);
        if (exitCode != 0)
        {
            throw new HarnessException($"kill -TERM {server.ProcessId} exited with {exitCode}:\n{ExternalProcess.Tail(output + errors)}");
        }

        if (!await Task.Run(() => server.ExitsWithin(TimeSpan.FromMinutes(3))).ConfigureAwait(false))
        {
            throw new HarnessException($"{server.Kind} (pid {server.ProcessId}) did not exit within 3 minutes of SIGTERM.");
        }

        return clock.Elapsed;
    }

    /// <summary>Runs a command with no arguments (SAVE) and fails unless the server answers OK.</summary>
    public static async Task CommandAsync(ServerProcess server, string command)
    {
        await using var connection = await server.ConnectAsync(TimeSpan.FromMinutes(2)).ConfigureAwait(false);
        var reply = await connection.GetDatabase().ExecuteAsync(command).ConfigureAwait(false);
        if ((string?)reply != "OK")
        {
            throw new HarnessException($"{command} to {server.Kind} answered {reply}.");
        }
    }

    private static async Task<long> DbSizeAsync(IDatabase database) => (long)await database.ExecuteAsync("DBSIZE").ConfigureAwait(false);
}
