using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text;
using Cubby.Grains;
using Cubby.Grains.Hosting;
using Cubby.Grains.Placement;
using Cubby.Sharding;
using Cubby.Tests.Client;
using Microsoft.Extensions.DependencyInjection;
using Xunit.Abstractions;

namespace Cubby.Tests.Orleans;

/// <summary>Shard grains on real Orleans silos: routing, the typed API, moving home on a join, a graceful leave, the sweep reminder.</summary>
public sealed class ShardGrainClusterTests(ITestOutputHelper output)
{
    private static readonly ShardMap Shards = new();
    private static readonly TimeSpan CallTimeout = TimeSpan.FromSeconds(15);

    [Fact]
    public async Task Entries_written_through_one_silo_are_read_through_every_other_and_the_typed_calls_keep_their_semantics()
    {
        await using var cluster = await ShardCluster.StartAsync(3);
        var factories = cluster.Cluster.GetActiveSilos().Select(static silo => silo.ServiceProvider.GetRequiredService<IGrainFactory>()).ToArray();
        for (var writer = 0; writer < factories.Length; writer++)
        {
            for (var i = 0; i < 50; i++)
            {
                var key = Key($"routing:{writer}:{i}");
                Assert.Equal(WriteOutcome.Created, await ShardOf(factories[writer], key).Set(key, Value($"v{writer}.{i}"), ShardExpiry.Never, CacheEntryFlags.Compressed, ShardWriteCondition.Always));
            }
        }

        foreach (var reader in factories)
        {
            for (var writer = 0; writer < factories.Length; writer++)
            {
                for (var i = 0; i < 50; i++)
                {
                    var key = Key($"routing:{writer}:{i}");
                    var entry = await ShardOf(reader, key).Get(key, slide: true);
                    Assert.NotNull(entry);
                    Assert.Equal($"v{writer}.{i}", Encoding.UTF8.GetString(entry.Value));
                    Assert.Equal(CacheEntryFlags.Compressed, entry.Flags);
                    Assert.Equal(-1, entry.TimeToLive);
                }
            }
        }

        var grains = cluster.Grains;
        var counter = Key("typed:counter");
        Assert.Equal(5, await ShardOf(grains, counter).Increment(counter, 5));
        Assert.Equal(3, await ShardOf(grains, counter).Increment(counter, -2));
        var notNumber = Key("typed:text");
        await ShardOf(grains, notNumber).Set(notNumber, Value("abc"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always);
        await Assert.ThrowsAsync<InvalidOperationException>(async () => await ShardOf(grains, notNumber).Increment(notNumber, 1));
        Assert.Equal(WriteOutcome.NotStored, await ShardOf(grains, notNumber).Set(notNumber, Value("x"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.IfAbsent));
        Assert.Equal(WriteOutcome.Updated, await ShardOf(grains, notNumber).Set(notNumber, Value("x"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.IfPresent));

        var sliding = Key("typed:sliding");
        var now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        await ShardOf(grains, sliding).Set(sliding, Value("s"), new ShardExpiry(now + 600_000, 60_000), CacheEntryFlags.None, ShardWriteCondition.Always);
        var ttl = await ShardOf(grains, sliding).TimeToLive(sliding);
        Assert.InRange(ttl, 1, 60_000);
        Assert.True(await ShardOf(grains, sliding).Refresh(sliding));
        Assert.Equal(1, await ShardOf(grains, sliding).Remove([sliding]));
        Assert.Equal(-2, await ShardOf(grains, sliding).TimeToLive(sliding));
        Assert.Null(await ShardOf(grains, sliding).Get(sliding, slide: false));
        Assert.False(await ShardOf(grains, sliding).Refresh(sliding));
    }

    [Fact]
    public async Task Batches_of_one_shard_run_in_one_call_and_a_write_larger_than_the_budget_is_refused_by_name()
    {
        await using var cluster = await ShardCluster.StartAsync(1, new ShardOptions { KeptForReuseBytes = 0, MaxMemoryBytes = 1024 * 1024 });
        var keys = Enumerable.Range(0, 10).Select(static i => Key($"{{batch}}:{i}")).ToArray();
        var shard = ShardOf(cluster.Grains, keys[0]);
        var outcomes = await shard.SetMany(keys, [.. keys.Select(static (_, i) => Value($"b{i}"))], ShardExpiry.Never, CacheEntryFlags.None);
        Assert.All(outcomes, static outcome => Assert.Equal(WriteOutcome.Created, outcome));
        var entries = await shard.GetMany([.. keys, Key("{batch}:absent")], slide: false);
        Assert.Equal([.. Enumerable.Range(0, 10).Select(static i => $"b{i}"), null], entries.Select(static e => e is null ? null : Encoding.UTF8.GetString(e.Value)));
        Assert.Equal(10, (await shard.Keys(Encoding.UTF8.GetBytes("{batch}:*"))).Length);
        Assert.Equal(new ShardCounts(10, 0), await shard.Count());
        Assert.Equal(10, await shard.Remove(keys));

        var huge = Key("huge");
        var refused = await Assert.ThrowsAsync<CubbyOutOfMemoryException>(async () =>
            await ShardOf(cluster.Grains, huge).Set(huge, new byte[2 * 1024 * 1024], ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always));
        Assert.Contains("Cubby:MaxMemoryBytes", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_fourth_silo_takes_about_a_quarter_of_the_shards_with_their_entries()
    {
        await using var cluster = await ShardCluster.StartAsync(3);
        var written = await WriteAllShardsAsync(cluster.Grains, "join", perShard: 4);
        Assert.Equal(Shards.SlotCount, cluster.ShardsPerSilo().Sum());

        var joined = Stopwatch.StartNew();
        await cluster.Cluster.StartAdditionalSiloAsync();
        int[] perSilo = [];
        await Poll.UntilAsync(() =>
        {
            perSilo = cluster.ShardsPerSilo();
            return perSilo.Length == 4 && perSilo.Sum() == Shards.SlotCount && perSilo[3] > 0 && AllHome(cluster);
        }, TimeSpan.FromSeconds(60), "every shard to be on its home silo after the join");
        output.WriteLine($"Shards per silo after the join: {string.Join("/", perSilo)}; moved {perSilo[3]} shards ({written.Count / Shards.SlotCount * perSilo[3]} entries) in {joined.Elapsed.TotalSeconds:F1} s");
        Assert.InRange(perSilo[3], Shards.SlotCount * 15 / 100, Shards.SlotCount * 35 / 100);

        foreach (var (key, value) in written)
        {
            var entry = await ShardOf(cluster.Grains, key).Get(key, slide: false);
            Assert.True(entry is not null, $"{Encoding.UTF8.GetString(key)} was lost when its shard moved.");
            Assert.Equal(value, entry.Value);
        }
    }

    [Fact]
    public async Task A_silo_leaving_gracefully_under_eight_writers_keeps_every_acknowledged_write_and_fails_no_call()
    {
        await using var cluster = await ShardCluster.StartAsync(3);
        await WriteAllShardsAsync(cluster.Grains, "warm", perShard: 1);
        // The writers call from a silo that stays and wait out a moving shard with ShardCallRetry, as a RESP front door does.
        var caller = cluster.Cluster.GetActiveSilos().First().ServiceProvider.GetRequiredService<IGrainFactory>();
        var acknowledged = new ConcurrentDictionary<string, byte[]>();
        var failures = new ConcurrentQueue<Exception>();
        var longest = new long[8];
        using var stop = new CancellationTokenSource();
        var writers = Enumerable.Range(0, 8).Select(writer => Task.Run(async () =>
        {
            for (var i = 0; !stop.IsCancellationRequested; i++)
            {
                var text = $"leave:{writer}:{i}";
                var key = Key(text);
                var value = Value(text);
                var started = Stopwatch.GetTimestamp();
                try
                {
                    await ShardCallRetry.CallAsync(() => ShardOf(caller, key).Set(key, value, ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always).AsTask(), CallTimeout);
                    acknowledged[text] = value;
                }
                catch (Exception exception)
                {
                    failures.Enqueue(exception);
                }

                longest[writer] = Math.Max(longest[writer], (long)Stopwatch.GetElapsedTime(started).TotalMilliseconds);
            }
        })).ToArray();

        await Poll.UntilAsync(() => acknowledged.Count >= 500, TimeSpan.FromSeconds(30), "writers to get going");
        var leaving = cluster.Cluster.GetActiveSilos().Last();
        var held = ShardCluster.CountShards(leaving.ServiceProvider.GetRequiredService<ShardCatalog>());
        await cluster.Cluster.StopSiloAsync(leaving);
        var countAtStop = acknowledged.Count;
        await Poll.UntilAsync(() => acknowledged.Count >= countAtStop + 500, TimeSpan.FromSeconds(30), "writers to go on after the leave");
        await stop.CancelAsync();
        await Task.WhenAll(writers);

        output.WriteLine($"The leaving silo held {held} shards; {acknowledged.Count} writes acknowledged; longest call {longest.Max()} ms");
        Assert.True(held > 0, "The leaving silo held no shard, so the test proved nothing.");
        Assert.True(failures.IsEmpty, $"{failures.Count} calls failed, first: {failures.FirstOrDefault()}");
        Assert.Equal(Shards.SlotCount, cluster.ShardsPerSilo().Sum());
        foreach (var (text, value) in acknowledged)
        {
            var key = Key(text);
            var entry = await ShardOf(cluster.Grains, key).Get(key, slide: false);
            Assert.True(entry is not null, $"{text} was acknowledged but lost in the leave.");
            Assert.Equal(value, entry.Value);
        }
    }

    /// <summary>
    /// Two silos that disagree about a shard's home (one has heard of a departure, the other not yet) would bounce it
    /// straight back; Orleans acknowledges a migration only once the grain has finished activating, so a grain that
    /// moves on at once leaves both silos waiting for each other and every call to it stalled.
    /// </summary>
    [Fact]
    public async Task A_shard_that_just_arrived_stays_put_when_asked_to_move_on_and_moves_once_settled()
    {
        await using var cluster = await ShardCluster.StartAsync(2);
        await Poll.UntilAsync(() => AllHome(cluster), TimeSpan.FromSeconds(60), "every shard to be on its home silo");
        var silos = cluster.Cluster.GetActiveSilos().ToArray();
        var first = silos[0].ServiceProvider.GetRequiredService<ShardHomes>();
        var second = silos[1].ServiceProvider.GetRequiredService<ShardCatalog>();
        var slot = Enumerable.Range(0, Shards.SlotCount).First(slot => first.HomeOf(slot).Equals(first.Self));
        var shard = cluster.Grains.GetGrain<IShardGrain>(slot);
        var key = Enumerable.Range(0, 100_000).Select(static i => Key($"bounce:{i}")).First(key => Shards.SlotOf(key) == slot);
        await shard.Set(key, Value("carried"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always);

        // Only the first silo hears that it is departing: to the second, the shard's home is still the first.
        // A shard that came home within its settle time stays put too, so the first move may take a few tries.
        first.MarkDeparting(first.Self);
        await Poll.UntilAsync(async () => await shard.MoveHome(), TimeSpan.FromSeconds(30), "the shard to leave its departing home");
        await Poll.UntilAsync(() => second.Find(slot) is { IsOpen: true }, TimeSpan.FromSeconds(30), "the shard to arrive on the second silo");

        Assert.False(await shard.MoveHome());
        await Poll.UntilAsync(async () => await shard.MoveHome(), TimeSpan.FromSeconds(30), "the settled shard to move on");
        Assert.Equal(Value("carried"), (await shard.Get(key, slide: false))?.Value);
    }

    [Fact]
    public async Task The_full_sweep_reminder_removes_expired_entries_nobody_reads()
    {
        var settings = new ShardOptions { KeptForReuseBytes = 0, MaxMemoryBytes = 64L * 1024 * 1024, FullSweepInterval = TimeSpan.FromSeconds(1) };
        await using var cluster = await ShardCluster.StartAsync(1, settings, minimumReminderPeriod: TimeSpan.FromSeconds(1));
        var keys = Enumerable.Range(0, 100).Select(static i => Key($"{{sweep}}:{i}")).ToArray();
        var shard = ShardOf(cluster.Grains, keys[0]);
        var expiresAt = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() + 300;
        await shard.SetMany(keys, [.. keys.Select(static _ => Value("short-lived"))], new ShardExpiry(expiresAt, 0), CacheEntryFlags.None);
        Assert.Equal(100, (await shard.Count()).Entries);

        // Count() reads no entry, so only the sweep can bring the count down.
        await Poll.UntilAsync(async () => (await shard.Count()).Entries == 0, TimeSpan.FromSeconds(30), "the sweep reminder to remove the expired entries");
    }

    private static async Task<List<(byte[] Key, byte[] Value)>> WriteAllShardsAsync(IGrainFactory grains, string prefix, int perShard)
    {
        var byShard = Enumerable.Range(0, Shards.SlotCount).Select(static _ => new List<(byte[] Key, byte[] Value)>()).ToArray();
        var filled = 0;
        for (var i = 0; filled < Shards.SlotCount; i++)
        {
            var key = Key($"{prefix}:{i}");
            var list = byShard[Shards.SlotOf(key)];
            if (list.Count < perShard)
            {
                list.Add((key, Value($"{prefix}-value-{i}")));
                filled += list.Count == perShard ? 1 : 0;
            }
        }

        await Parallel.ForEachAsync(Enumerable.Range(0, Shards.SlotCount), new ParallelOptions { MaxDegreeOfParallelism = 32 }, async (shard, _) =>
        {
            var entries = byShard[shard];
            await grains.GetGrain<IShardGrain>(shard).SetMany([.. entries.Select(static e => e.Key)], [.. entries.Select(static e => e.Value)], ShardExpiry.Never, CacheEntryFlags.None);
        });
        return [.. byShard.SelectMany(static list => list)];
    }

    private static bool AllHome(ShardCluster cluster)
    {
        foreach (var silo in cluster.Cluster.GetActiveSilos())
        {
            var catalog = silo.ServiceProvider.GetRequiredService<ShardCatalog>();
            var homes = silo.ServiceProvider.GetRequiredService<ShardHomes>();
            for (var shard = 0; shard < catalog.SlotCount; shard++)
            {
                if (catalog.Find(shard) is { IsOpen: true } && !homes.HomeOf(shard).Equals(homes.Self))
                {
                    return false;
                }
            }
        }

        return true;
    }

    private static IShardGrain ShardOf(IGrainFactory grains, byte[] key) => grains.GetGrain<IShardGrain>(Shards.SlotOf(key));

    private static byte[] Key(string text) => Encoding.UTF8.GetBytes(text);

    private static byte[] Value(string text) => Encoding.UTF8.GetBytes(text);
}
