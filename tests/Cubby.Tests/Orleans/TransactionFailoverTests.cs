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
/// the shard's silo dies before the hold ends, the replica that resumes it asks the transaction's outcome before it
/// serves anyone, and keeps the changes or puts the keys back as it says. Before, what a held shard changed reached its
/// replicas only as the hold ended, so a silo dying in between lost a kept transaction's part there.
/// </summary>
public sealed class TransactionFailoverTests
{
    private static readonly ShardMap Shards = new();

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task A_shard_resumed_from_a_replica_mid_transaction_keeps_or_puts_back_its_keys_as_the_outcome_says(bool kept)
    {
        await using var cluster = await ShardCluster.StartAsync(2, configureSilo: static (_, silo) =>
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
        var silos = cluster.Cluster.Silos.ToArray();
        var victim = silos[1];
        var homes = victim.ServiceProvider.GetRequiredService<ShardHomes>();
        await Poll.UntilAsync(() => homes.Homes().Length == 2, TimeSpan.FromSeconds(30), "both silos to be homes");
        var changed = KeyHomedOn(homes, "changed");
        var created = KeyHomedOn(homes, "created", Shards.SlotOf(changed));
        var slot = Shards.SlotOf(changed);
        var shard = cluster.Grains.GetGrain<IShardGrain>(slot);
        await Poll.UntilAsync(
            async () =>
            {
                await shard.Set(changed, Encoding.UTF8.GetBytes("before"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always);
                return victim.ServiceProvider.GetRequiredService<ShardCatalog>().Find(slot) is { IsOpen: true }
                    && silos[0].ServiceProvider.GetRequiredService<Cubby.Grains.Replication.ShardReplicas>().PositionOf(slot) is not null;
            },
            TimeSpan.FromSeconds(30),
            "the shard at its home with a replica on the other silo");

        // The transaction changes one key and creates another, then its silo dies before the hold ends.
        var callback = new DecidingCallback(cluster.Grains, slot, changed, created);
        var reference = cluster.Grains.CreateObjectReference<ITransactionCallback>(callback);
        RequestContext.ReentrancyId = Guid.NewGuid();
        Task<HoldEnd> holding;
        try
        {
            holding = shard.Hold([slot], [[changed, created]], 0, reference).AsTask();
        }
        finally
        {
            RequestContext.ReentrancyId = Guid.Empty;
        }

        await callback.Ran.WaitAsync(TimeSpan.FromSeconds(30));
        await cluster.Cluster.KillSiloAsync(victim);
        callback.Decide(kept);
        await Assert.ThrowsAnyAsync<Exception>(() => holding);

        // The first call after the death resumes the shard on the silo left, from its replica, which asks first.
        ShardEntry? changedEntry = null;
        ShardEntry? createdEntry = null;
        await Poll.UntilAsync(
            async () =>
            {
                try
                {
                    changedEntry = await shard.Get(changed, slide: false);
                    createdEntry = await shard.Get(created, slide: false);
                    return changedEntry is not null;
                }
                catch (Exception exception) when (exception is not OutOfMemoryException)
                {
                    return false;
                }
            },
            TimeSpan.FromSeconds(60),
            "the shard to resume on the silo left");
        Assert.Equal(kept ? "during" : "before", Encoding.UTF8.GetString(changedEntry!.Value));
        Assert.Equal(kept, createdEntry is not null);
        Assert.True(callback.Asked >= 1);
        cluster.Grains.DeleteObjectReference<ITransactionCallback>(reference);
    }

    private static byte[] KeyHomedOn(ShardHomes homes, string prefix, int? slot = null) =>
        Enumerable.Range(0, 100_000)
            .Select(i => Encoding.UTF8.GetBytes($"failover:{prefix}:{i}"))
            .First(key => homes.HomeOf(Shards.SlotOf(key)).Equals(homes.Self) && (slot is null || Shards.SlotOf(key) == slot));

    /// <summary>Runs the transaction's commands in its chain once held, then waits for the test to decide its outcome.</summary>
    private sealed class DecidingCallback(IGrainFactory grains, int slot, byte[] changed, byte[] created) : ITransactionCallback
    {
        private readonly TaskCompletionSource _ran = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource<bool> _outcome = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _asked;

        public Task Ran => _ran.Task;

        public int Asked => Volatile.Read(ref _asked);

        public void Decide(bool kept) => _outcome.TrySetResult(kept);

        public async Task<bool> Held()
        {
            var shard = grains.GetGrain<IShardGrain>(slot);
            await shard.Set(changed, Encoding.UTF8.GetBytes("during"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always);
            await shard.Set(created, Encoding.UTF8.GetBytes("created"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always);
            _ran.TrySetResult();
            return await _outcome.Task;
        }

        public Task<bool> Committed()
        {
            Interlocked.Increment(ref _asked);
            return _outcome.Task;
        }
    }
}
