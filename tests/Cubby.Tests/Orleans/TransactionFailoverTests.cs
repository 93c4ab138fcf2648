using System.Text;
using Cubby.Grains;
using Cubby.Grains.Placement;
using Cubby.Sharding;
using Cubby.Tests.Client;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Configuration;
using Orleans.Runtime;
using Orleans.TestingHost;

namespace Cubby.Tests.Orleans;

/// <summary>
/// A held shard's replicas take the transaction's changes as they are made, with what they need to settle them: when
/// the shard's silo dies before the hold ends, the replica that resumes it settles them before it serves anyone. The
/// transaction's last shard decides its outcome: a shard before it asks it, and keeps or puts back its keys as it
/// says; the last shard resumed from a replica that has no decision never answered anyone, and rolls back.
/// </summary>
public sealed class TransactionFailoverTests
{
    private static readonly ShardMap Shards = new();

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task A_shard_resumed_mid_transaction_keeps_or_puts_back_its_keys_as_the_last_shard_decided(bool kept)
    {
        await using var cluster = await StartAsync();
        var (victim, survivor) = (cluster.Cluster.Silos[1], cluster.Cluster.Silos[0]);
        var victimHomes = victim.ServiceProvider.GetRequiredService<ShardHomes>();
        var survivorHomes = survivor.ServiceProvider.GetRequiredService<ShardHomes>();
        await Poll.UntilAsync(() => victimHomes.Homes().Length == 2, TimeSpan.FromSeconds(30), "both silos to be homes");

        // The victim's shard comes first in the chain; the last, which decides, lives on the silo that stays.
        var decided = KeyHomedOn(survivorHomes, "decided");
        var changed = KeyHomedOn(victimHomes, "changed", below: Shards.SlotOf(decided));
        var created = KeyHomedOn(victimHomes, "created", slot: Shards.SlotOf(changed));
        int[] slots = [Shards.SlotOf(changed), Shards.SlotOf(decided)];
        await WriteAtHomeAsync(cluster, victim, survivor, changed);
        await WriteAtHomeAsync(cluster, survivor, victim, decided);

        var callback = new DecidingCallback(GrainsOf(survivor), [(changed, "during"), (created, "created"), (decided, "during")]);
        var holding = Hold(GrainsOf(survivor), slots, [[changed, created], [decided]], callback);
        await callback.Ran.WaitAsync(TimeSpan.FromSeconds(30));
        await cluster.Cluster.KillSiloAsync(victim);
        callback.Decide(kept);
        await Assert.ThrowsAnyAsync<Exception>(() => holding);

        Assert.Equal(kept ? "during" : "before", await ReadAfterDeathAsync(cluster, decided));
        Assert.Equal(kept ? "during" : "before", await ReadAfterDeathAsync(cluster, changed));
        Assert.Equal(kept ? "created" : null, await ReadAfterDeathAsync(cluster, created));
    }

    [Fact]
    public async Task The_last_shard_resumed_from_a_replica_without_its_decision_rolls_the_transaction_back()
    {
        await using var cluster = await StartAsync();
        var (victim, survivor) = (cluster.Cluster.Silos[1], cluster.Cluster.Silos[0]);
        var homes = victim.ServiceProvider.GetRequiredService<ShardHomes>();
        await Poll.UntilAsync(() => homes.Homes().Length == 2, TimeSpan.FromSeconds(30), "both silos to be homes");
        var changed = KeyHomedOn(homes, "changed");
        var created = KeyHomedOn(homes, "created", slot: Shards.SlotOf(changed));
        await WriteAtHomeAsync(cluster, victim, survivor, changed);

        // Its silo dies before the answer to keep reaches it: whoever asks later learns it rolled back.
        var callback = new DecidingCallback(GrainsOf(survivor), [(changed, "during"), (created, "created")]);
        var holding = Hold(GrainsOf(survivor), [Shards.SlotOf(changed)], [[changed, created]], callback);
        await callback.Ran.WaitAsync(TimeSpan.FromSeconds(30));
        await cluster.Cluster.KillSiloAsync(victim);
        callback.Decide(true);
        await Assert.ThrowsAnyAsync<Exception>(() => holding);

        Assert.Equal("before", await ReadAfterDeathAsync(cluster, changed));
        Assert.Null(await ReadAfterDeathAsync(cluster, created));
        Assert.False(await cluster.Grains.GetGrain<IShardGrain>(Shards.SlotOf(changed)).Outcome(callback.Chain));
    }

    private static Task<ShardCluster> StartAsync() =>
        ShardCluster.StartAsync(2, configureSilo: static (_, silo) =>
        {
            silo.Configure<ClusterMembershipOptions>(static membership =>
            {
                membership.ProbeTimeout = TimeSpan.FromSeconds(1);
                membership.NumMissedProbesLimit = 2;
                membership.NumVotesForDeathDeclaration = 1;
                membership.TableRefreshTimeout = TimeSpan.FromSeconds(1);
            });
            silo.Configure<GrainDirectoryOptions>(static directory => directory.RangeLeaseDuration = TimeSpan.FromSeconds(3));
        });

    /// <summary>Writes "before" to <paramref name="key"/> until its shard is open at its home with a replica on the other silo.</summary>
    private static Task WriteAtHomeAsync(ShardCluster cluster, InProcessSiloHandle home, InProcessSiloHandle other, byte[] key)
    {
        var slot = Shards.SlotOf(key);
        return Poll.UntilAsync(
            async () =>
            {
                await cluster.Grains.GetGrain<IShardGrain>(slot).Set(key, Encoding.UTF8.GetBytes("before"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always);
                return home.ServiceProvider.GetRequiredService<ShardCatalog>().Find(slot) is { IsOpen: true }
                    && other.ServiceProvider.GetRequiredService<Cubby.Grains.Replication.ShardReplicas>().PositionOf(slot) is not null;
            },
            TimeSpan.FromSeconds(30),
            "the shard at its home with a replica on the other silo");
    }

    /// <summary>
    /// A silo's own grain factory: a transaction runs on a silo (the RESP front door's), whose call back reaches the last
    /// shard's silo directly. A gateway client's goes through the gateway it registered with, and when that is the silo
    /// killed the last shard's call back breaks, and it rolls back, whatever the test decides.
    /// </summary>
    private static IGrainFactory GrainsOf(InProcessSiloHandle silo) => silo.ServiceProvider.GetRequiredService<IGrainFactory>();

    private static Task<HoldEnd> Hold(IGrainFactory grains, int[] slots, byte[][][] keys, DecidingCallback callback)
    {
        var reference = grains.CreateObjectReference<ITransactionCallback>(callback);
        RequestContext.ReentrancyId = callback.Chain;
        try
        {
            return grains.GetGrain<IShardGrain>(slots[0]).Hold(slots, keys, 0, reference).AsTask();
        }
        finally
        {
            RequestContext.ReentrancyId = Guid.Empty;
        }
    }

    /// <summary>The key's value once its shard answers on the silo left (the first call resumes it there, from its replica).</summary>
    private static async Task<string?> ReadAfterDeathAsync(ShardCluster cluster, byte[] key)
    {
        ShardEntry? entry = null;
        await Poll.UntilAsync(
            async () =>
            {
                try
                {
                    entry = await cluster.Grains.GetGrain<IShardGrain>(Shards.SlotOf(key)).Get(key, slide: false);
                    return true;
                }
                catch (Exception exception) when (exception is not OutOfMemoryException)
                {
                    return false;
                }
            },
            TimeSpan.FromSeconds(60),
            "the shard to answer on the silo left");
        return entry is null ? null : Encoding.UTF8.GetString(entry.Value);
    }

    private static byte[] KeyHomedOn(ShardHomes homes, string prefix, int? slot = null, int below = int.MaxValue) =>
        Enumerable.Range(0, 100_000)
            .Select(i => Encoding.UTF8.GetBytes($"failover:{prefix}:{i}"))
            .First(key => homes.HomeOf(Shards.SlotOf(key)).Equals(homes.Self) && (slot is null || Shards.SlotOf(key) == slot) && Shards.SlotOf(key) < below);

    /// <summary>Runs the transaction's writes in its chain once held, then waits for the test to decide whether to keep them.</summary>
    private sealed class DecidingCallback(IGrainFactory grains, (byte[] Key, string Value)[] writes) : ITransactionCallback
    {
        private readonly TaskCompletionSource _ran = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource<bool> _outcome = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public Guid Chain { get; } = Guid.NewGuid();

        public Task Ran => _ran.Task;

        public void Decide(bool kept) => _outcome.TrySetResult(kept);

        public async Task<bool> Held()
        {
            foreach (var (key, value) in writes)
            {
                await grains.GetGrain<IShardGrain>(Shards.SlotOf(key)).Set(key, Encoding.UTF8.GetBytes(value), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always);
            }

            _ran.TrySetResult();
            return await _outcome.Task;
        }
    }
}
