using System.Text;
using Cubby.Grains;
using Cubby.Grains.Placement;
using Cubby.Grains.Replication;
using Cubby.Sharding;
using Cubby.Tests.Client;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Orleans;

/// <summary>
/// A snapshot can reach a replica after the replica moved past it: its call timed out at the primary, which brought the
/// replica in step another way since, and acknowledged writes it applied. Installing it would take those writes away
/// from the copy a failover resumes from, so the replica stays where it is.
/// </summary>
public sealed class LateSnapshotTests
{
    private const int Slot = 7;
    private static readonly ShardMap Shards = new();

    [Fact]
    public async Task A_snapshot_older_than_what_the_replica_applied_leaves_the_replica_where_it_is()
    {
        await using var cluster = await ShardCluster.StartAsync(2);
        var silos = cluster.Cluster.GetActiveSilos().ToArray();
        var shard = cluster.Grains.GetGrain<IShardGrain>(Slot);
        var keys = Enumerable.Range(0, 100_000).Select(static i => Encoding.UTF8.GetBytes($"late:{i}")).Where(static key => Shards.SlotOf(key) == Slot).Take(20).ToArray();
        byte[][] values = [.. keys.Select(static key => Encoding.UTF8.GetBytes("value of " + Encoding.UTF8.GetString(key)))];
        await Poll.UntilAsync(
            async () =>
            {
                await shard.SetMany(keys[..10], values[..10], ShardExpiry.Never, CacheEntryFlags.None);
                return silos.Any(silo => silo.ServiceProvider.GetRequiredService<ShardCatalog>().Find(Slot) is { IsOpen: true }
                    && silo.ServiceProvider.GetRequiredService<ShardHomes>() is var homes && homes.Homes().Length == 2 && homes.HomeOf(Slot).Equals(homes.Self))
                    && silos.Any(static silo => silo.ServiceProvider.GetRequiredService<ShardReplicas>().PositionOf(Slot) is not null);
            },
            TimeSpan.FromSeconds(30),
            "the shard at its home with a replica on the other silo");
        var home = silos.Single(static silo => silo.ServiceProvider.GetRequiredService<ShardCatalog>().Find(Slot) is { IsOpen: true });
        var keeper = silos.Single(silo => silo != home).ServiceProvider.GetRequiredService<ShardReplicas>();

        // The snapshot a slow install call carries, taken before the rest of the keys are written and acknowledged.
        var late = await home.ServiceProvider.GetRequiredService<ShardCatalog>().Find(Slot)!.SnapshotAsync(ShardGrain.MigrationChunkBytes);
        await shard.SetMany(keys[10..], values[10..], ShardExpiry.Never, CacheEntryFlags.None);
        var position = keeper.PositionOf(Slot)!.Value;
        var entries = keeper.Entries;
        Assert.True(position.Sequence > late.Sequence, $"the replica at {position.Sequence}, past the snapshot's {late.Sequence}");

        var answer = keeper.Install(home.SiloAddress, Slot, position.Epoch, late.Sequence, late.Chunks, late.Transactions);

        Assert.Equal(ReplicaAnswer.Applied, answer);
        Assert.Equal(position, keeper.PositionOf(Slot));
        Assert.Equal(entries, keeper.Entries);
    }
}
