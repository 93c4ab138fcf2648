using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Text;
using Cubby.Client;
using Cubby.Sharding;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;
using Xunit.Abstractions;

namespace Cubby.Tests.Orleans;

/// <summary>
/// A near-cache client on three silo processes over a real PostgreSQL while another client writes, and one silo is
/// killed with SIGKILL: no read returns a value older than one acknowledged <c>MaxStaleness</c> before the read began,
/// the copies tracked by the dead silo are dropped, the others are still served, and once the dead silo's shards resume
/// from their replicas every key reads its last acknowledged write.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class NearCacheKillTests(PostgresServer server, ITestOutputHelper output) : OwnSchemaTests(server, "cubby_near")
{
    private const int SlotCount = 256;
    private const int KeyCount = 400;
    private static readonly TimeSpan MaxStaleness = TimeSpan.FromSeconds(1);

    [Fact]
    public async Task A_silo_killed_under_load_drops_its_copies_only_and_no_read_is_staler_than_the_bound()
    {
        using var cluster = new ProcessCluster(ConnectionString, $"near-{Guid.NewGuid():N}", 3, SlotCount);
        await cluster.StartAllAsync();
        await cluster.WaitSettledAsync(3, TimeSpan.FromSeconds(90));
        await using var writerServices = ClusterKeys.ClientFor(cluster);
        await using var readerServices = ClusterKeys.ClientFor(cluster, o => (o.NearCache.Enabled, o.NearCache.MaxStaleness) = (true, MaxStaleness));
        var writer = writerServices.GetRequiredService<ICubbyClient>();
        var reader = readerServices.GetRequiredService<ICubbyClient>();
        var near = Assert.IsType<CubbyClient>(reader).NearCache!;

        var keys = Enumerable.Range(0, KeyCount).Select(i => $"near:{i}").ToArray();
        var history = new WriteHistory(keys);
        foreach (var key in keys)
        {
            await history.WriteAsync(writer, key);
        }

        const int Victim = 1;
        var owners = await ClusterKeys.OwnersAsync(cluster, 0);
        var shardMap = new ShardMap(SlotCount);
        var onVictim = keys.Where(key => owners[shardMap.SlotOf(Encoding.UTF8.GetBytes(key))] == $"127.0.0.1:{cluster.RespPort(Victim)}").ToHashSet();
        var elsewhere = keys.Where(key => !onVictim.Contains(key)).ToArray();
        Assert.NotEmpty(onVictim);

        using var stop = new CancellationTokenSource();
        var reads = Enumerable.Range(0, 4).Select(i => Task.Run(() => ReadLoopAsync(reader, history, i, stop.Token))).ToArray();
        var writes = Task.Run(() => WriteLoopAsync(writer, history, keys, stop.Token));
        await Poll.UntilAsync(() => near.Metrics.Hits > 20_000 && near.Metrics.Invalidations > 100, TimeSpan.FromSeconds(60), "the near cache to serve reads and take invalidations under load");

        var (hitsBeforeKill, writesBeforeKill) = (near.Metrics.Hits, history.Writes);
        cluster.Kill(Victim);
        var recovered = await ClusterKeys.WaitUntilReadsAnswerAsync(writer, onVictim.Take(20).ToArray(), TimeSpan.FromSeconds(60));
        await Task.Delay(TimeSpan.FromSeconds(2));
        await stop.CancelAsync();
        var outcomes = await Task.WhenAll(reads);
        await writes;

        var total = Outcome.Sum(outcomes);
        output.WriteLine(
            $"near cache under kill -9: {total.Reads} reads ({near.Metrics.Hits} near-cache hits, {near.Metrics.Misses} misses, {near.Metrics.Invalidations} invalidations), " +
            $"{history.Writes} writes, {total.Failed} failed reads; shards answered again after {recovered.TotalSeconds:0.0} s; " +
            $"reads older than a write acknowledged before they began: {total.StaleWithinBound} within {MaxStaleness.TotalSeconds} s, {total.StaleBeyondBound} beyond");
        Assert.True(total.StaleBeyondBound == 0, $"{total.StaleBeyondBound} reads returned a value older than one acknowledged {MaxStaleness} before they began, first: {total.FirstStale}");
        Assert.True(near.Metrics.Hits > hitsBeforeKill, "the near cache served nothing after the kill");
        Assert.True(history.Writes > writesBeforeKill, "nothing was written after the kill");

        // The copies tracked by the surviving silos are still served; every key reads its last acknowledged write.
        var hits = near.Metrics.Hits;
        foreach (var key in elsewhere.Take(50))
        {
            await NearCacheTests.KeptAsync(reader, key, history.Last(key).ToString(CultureInfo.InvariantCulture));
        }

        Assert.True(near.Metrics.Hits > hits);

        // The last writes' invalidations may still be on their way, never for longer than MaxStaleness.
        foreach (var key in keys)
        {
            var last = history.Last(key).ToString(CultureInfo.InvariantCulture);
            await Poll.UntilAsync(async () => Encoding.UTF8.GetString((await reader.GetAsync(key))!) == last, MaxStaleness * 5, $"{key} to read its last acknowledged write {last}");
        }
    }

    private static async Task WriteLoopAsync(ICubbyClient writer, WriteHistory history, string[] keys, CancellationToken stop)
    {
        var random = new Random(7);
        while (!stop.IsCancellationRequested)
        {
            try
            {
                await history.WriteAsync(writer, keys[random.Next(keys.Length)]);
            }
            catch (Exception exception) when (exception is TimeoutException or CubbyConnectionException)
            {
                // Writes to the dead silo's shards fail until they resume; the history keeps acknowledged ones only.
            }

            await Task.Delay(2, CancellationToken.None);
        }
    }

    private static async Task<Outcome> ReadLoopAsync(ICubbyClient reader, WriteHistory history, int seed, CancellationToken stop)
    {
        var random = new Random(seed);
        var outcome = new Outcome();
        while (!stop.IsCancellationRequested)
        {
            var key = history.Keys[random.Next(history.Keys.Length)];
            var began = Stopwatch.GetTimestamp();
            try
            {
                var value = await reader.GetAsync(key, CancellationToken.None);
                outcome.Reads++;
                var version = long.Parse(Encoding.UTF8.GetString(value!), CultureInfo.InvariantCulture);
                var (newest, ackedAt) = history.NewestAckedBefore(key, began);
                if (version < newest)
                {
                    if (Stopwatch.GetElapsedTime(ackedAt, began) >= MaxStaleness)
                    {
                        outcome.StaleBeyondBound++;
                        outcome.FirstStale ??= $"{key} read {version} after {newest} was acknowledged {Stopwatch.GetElapsedTime(ackedAt, began).TotalMilliseconds:0} ms before";
                    }
                    else
                    {
                        outcome.StaleWithinBound++;
                    }
                }
            }
            catch (Exception exception) when (exception is TimeoutException or CubbyConnectionException)
            {
                outcome.Failed++;
            }

            // A hit completes at once; a request handler would give its thread back now and then, and so does this.
            if (outcome.Reads % 64 == 0)
            {
                await Task.Yield();
            }
        }

        return outcome;
    }

    /// <summary>Each key's acknowledged versions, 0 up, with the timestamp of each acknowledgment.</summary>
    private sealed class WriteHistory(string[] keys)
    {
        private readonly ConcurrentDictionary<string, List<(long Version, long AckedAt)>> _acked = new(keys.Select(key => KeyValuePair.Create(key, new List<(long, long)>())));
        private readonly ConcurrentDictionary<string, long> _next = new();
        private long _writes;

        public string[] Keys { get; } = keys;

        public long Writes => Interlocked.Read(ref _writes);

        public async Task WriteAsync(ICubbyClient writer, string key)
        {
            var version = _next.AddOrUpdate(key, 0, static (_, last) => last + 1);
            await writer.PutAsync(key, Encoding.UTF8.GetBytes(version.ToString(CultureInfo.InvariantCulture)));
            var acked = Stopwatch.GetTimestamp();
            var list = _acked[key];
            lock (list)
            {
                list.Add((version, acked));
            }

            Interlocked.Increment(ref _writes);
        }

        public (long Version, long AckedAt) NewestAckedBefore(string key, long timestamp)
        {
            var list = _acked[key];
            lock (list)
            {
                var newest = (Version: -1L, AckedAt: 0L);
                foreach (var (version, ackedAt) in list)
                {
                    if (ackedAt <= timestamp && version > newest.Version)
                    {
                        newest = (version, ackedAt);
                    }
                }

                return newest;
            }
        }

        public long Last(string key)
        {
            var list = _acked[key];
            lock (list)
            {
                return list.Max(static item => item.Version);
            }
        }
    }

    private sealed class Outcome
    {
        public long Reads { get; set; }

        public long Failed { get; set; }

        public long StaleWithinBound { get; set; }

        public long StaleBeyondBound { get; set; }

        public string? FirstStale { get; set; }

        public static Outcome Sum(IEnumerable<Outcome> outcomes)
        {
            var sum = new Outcome();
            foreach (var outcome in outcomes)
            {
                sum.Reads += outcome.Reads;
                sum.Failed += outcome.Failed;
                sum.StaleWithinBound += outcome.StaleWithinBound;
                sum.StaleBeyondBound += outcome.StaleBeyondBound;
                sum.FirstStale ??= outcome.FirstStale;
            }

            return sum;
        }
    }
}
