using System.Diagnostics;
using System.Globalization;
using System.Text;
using Cubby.Load.Cluster;
using Cubby.Resp;

namespace Cubby.Load.Tracking;

/// <summary>
/// <c>tracking [--rounds N] [--out FILE] [--silo PATH]</c>: how long after a change its subscribers and trackers hear
/// of it, on redis-server, on one silo, and on 3 silo processes in one Development cluster with the reader on one silo
/// and the writer on another.
/// <list type="bullet">
/// <item>Invalidation delay: a RESP3 connection with <c>CLIENT TRACKING ON</c> GETs a key, another connection SETs it;
/// from the SET's reply to the <c>invalidate</c> push. In the cluster, split by where the key's shard is: on the
/// tracker's silo, or on another one.</item>
/// <item>Message delay: from sending PUBLISH to the subscriber receiving the message.</item>
/// </list>
/// </summary>
internal static class TrackingCommand
{
    public const string Usage = "tracking [--rounds N (2000)] [--out FILE] [--silo PATH]";

    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter log)
    {
        var rounds = 2000;
        string? siloPath = null;
        string? outPath = null;
        var known = await CommandOptions.ReadAsync(args, Usage, new Dictionary<string, Action<string>>
        {
            ["--rounds"] = value => rounds = int.Parse(value, CultureInfo.InvariantCulture),
            ["--silo"] = value => siloPath = value,
            ["--out"] = value => outPath = value,
        }).ConfigureAwait(false);
        if (!known)
        {
            return 2;
        }

        var tools = Prerequisites.ForSilo(siloPath) with
        {
            RedisServer = ExternalProcess.Which("redis-server") ?? throw new HarnessException("redis-server is not installed (apt-get install redis-server)."),
        };
        var table = new StringBuilder()
            .AppendLine("| Server | Measured | Rounds | p50 µs | p99 µs | max µs |")
            .AppendLine("|---|---|---:|---:|---:|---:|");
        void Row(string server, string what, List<double> delays)
        {
            var line = Format(server, what, delays);
            log.WriteLine(line);
            table.AppendLine(line);
        }

        using (var redis = await ServerProcess.StartAsync(ServerKind.Redis, tools).ConfigureAwait(false))
        {
            Row("Redis", "invalidation", await InvalidationsAsync(redis.Port, redis.Port, rounds, static _ => true).ConfigureAwait(false));
            Row("Redis", "message", await MessagesAsync(redis.Port, redis.Port, rounds).ConfigureAwait(false));
        }

        using (var silo = await ServerProcess.StartAsync(ServerKind.Cubby, tools).ConfigureAwait(false))
        {
            Row("Cubby, 1 silo", "invalidation", await InvalidationsAsync(silo.Port, silo.Port, rounds, static _ => true).ConfigureAwait(false));
            Row("Cubby, 1 silo", "message", await MessagesAsync(silo.Port, silo.Port, rounds).ConfigureAwait(false));
        }

        var silos = await DevelopmentCluster.StartAsync(tools, 3, ["--Logging:LogLevel:Default", "Warning"]).ConfigureAwait(false);
        try
        {
            var (reader, writer) = (silos[0].Port, silos[1].Port);
            await using var owners = await RespConnection.ConnectAsync(reader).ConfigureAwait(false);
            var onReader = new HashSet<string>();
            for (var i = 0; i < 100; i++)
            {
                var owner = await owners.CallAsync("CUBBY.OWNER", Key(i)).ConfigureAwait(false);
                if (owner.Items[1].AsString()!.EndsWith($":{reader}", StringComparison.Ordinal))
                {
                    onReader.Add(Key(i));
                }
            }

            Row("Cubby, 3 silos", "invalidation, key's shard on the tracker's silo", await InvalidationsAsync(reader, writer, rounds, onReader.Contains).ConfigureAwait(false));
            Row("Cubby, 3 silos", "invalidation, key's shard on another silo", await InvalidationsAsync(reader, writer, rounds, key => !onReader.Contains(key)).ConfigureAwait(false));
            Row("Cubby, 3 silos", "message, publisher on another silo", await MessagesAsync(reader, writer, rounds).ConfigureAwait(false));
        }
        finally
        {
            foreach (var silo in silos)
            {
                silo.Dispose();
            }
        }

        if (outPath is not null)
        {
            await File.WriteAllTextAsync(outPath, table.ToString()).ConfigureAwait(false);
            await log.WriteLineAsync($"Wrote {outPath}").ConfigureAwait(false);
        }

        return 0;
    }

    private static string Key(int i) => $"tracked:{i}";

    /// <summary>From a SET's reply to the tracker's invalidation of the key, for keys <paramref name="include"/> picks.</summary>
    private static async Task<List<double>> InvalidationsAsync(int trackerPort, int writerPort, int rounds, Func<string, bool> include)
    {
        var keys = Enumerable.Range(0, 100).Select(Key).Where(include).ToArray();
        await using var tracker = await RespConnection.ConnectAsync(trackerPort).ConfigureAwait(false);
        await using var writer = await RespConnection.ConnectAsync(writerPort).ConfigureAwait(false);
        await tracker.CallAsync("HELLO", "3").ConfigureAwait(false);
        await tracker.CallAsync("CLIENT", "TRACKING", "ON").ConfigureAwait(false);
        var delays = new List<double>(rounds);
        for (var i = 0; i < rounds + rounds / 10; i++)
        {
            var key = keys[i % keys.Length];
            await tracker.CallAsync("GET", key).ConfigureAwait(false);
            await writer.CallAsync("SET", key, "v").ConfigureAwait(false);
            var acknowledged = Stopwatch.GetTimestamp();
            var push = await tracker.ReadAsync().ConfigureAwait(false);
            if (push.Type != RespType.Push || push.Items[0].AsString() != "invalidate")
            {
                throw new HarnessException($"expected an invalidate push, got {push}");
            }

            // The first tenth warms up.
            if (i >= rounds / 10)
            {
                delays.Add(Stopwatch.GetElapsedTime(acknowledged).TotalMicroseconds);
            }
        }

        return delays;
    }

    /// <summary>From sending PUBLISH to the subscriber receiving the message.</summary>
    private static async Task<List<double>> MessagesAsync(int subscriberPort, int publisherPort, int rounds)
    {
        await using var subscriber = await RespConnection.ConnectAsync(subscriberPort).ConfigureAwait(false);
        await using var publisher = await RespConnection.ConnectAsync(publisherPort).ConfigureAwait(false);
        await subscriber.CallAsync("SUBSCRIBE", "delay").ConfigureAwait(false);
        var delays = new List<double>(rounds);
        for (var i = 0; i < rounds + rounds / 10; i++)
        {
            var sent = Stopwatch.GetTimestamp();
            await publisher.SendAsync("PUBLISH", "delay", "m").ConfigureAwait(false);
            await subscriber.ReadAsync().ConfigureAwait(false);
            var received = Stopwatch.GetElapsedTime(sent).TotalMicroseconds;
            await publisher.ReadAsync().ConfigureAwait(false);
            if (i >= rounds / 10)
            {
                delays.Add(received);
            }
        }

        return delays;
    }

    private static string Format(string server, string what, List<double> delays)
    {
        delays.Sort();
        return string.Create(CultureInfo.InvariantCulture, $"| {server} | {what} | {delays.Count} | {delays[delays.Count / 2]:0} | {delays[(int)(delays.Count * 0.99)]:0} | {delays[^1]:0} |");
    }
}
