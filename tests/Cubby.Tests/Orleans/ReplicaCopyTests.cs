using System.Text;
using Cubby.Grains;
using Cubby.Grains.Migration;
using Cubby.Grains.Placement;
using Cubby.Grains.Replication;
using Cubby.Sharding;
using Cubby.Tests.Client;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Orleans;

/// <summary>
/// What moves a replica's copy as a whole. A silo that hands its replica to a shard's new primary on another silo copies
/// it rather than giving it away: a new primary that fails to install the copy, or dies before a replica of its own has
/// it, finds it again. A snapshot that reaches a replica after the replica moved past it (its call timed out at the
/// primary, which brought the replica in step another way since, and acknowledged writes it applied) is dropped:
/// installing it would take those writes away from the copy a failover resumes from.
/// </summary>
public sealed class ReplicaCopyTests
{
    private const int Slot = 7;
    private const int Keys = 20;
    private static readonly ShardMap Shards = new();

    [Fact]
    public async Task A_replica_handed_over_stays_frozen_until_forgotten_and_its_old_primary_can_no_longer_write()
    {
        await using var cluster = await ShardCluster.StartAsync(2);
        var silos = cluster.Cluster.GetActiveSilos().ToArray();
        var shard = cluster.Grains.GetGrain<IShardGrain>(Slot);
        var (keys, values) = Entries("handed");
        await shard.SetMany(keys, values, ShardExpiry.Never, CacheEntryFlags.None);

        // A shard placed before both silos knew each other is away from its home, with no replica until it moves there.
        await Poll.UntilAsync(() => silos.Any(static silo => silo.ServiceProvider.GetRequiredService<ShardHomes>() is var homes
            && homes.Homes().Length == 2 && homes.HomeOf(Slot).Equals(homes.Self)
            && silo.ServiceProvider.GetRequiredService<ShardCatalog>().Find(Slot) is { IsOpen: true }), TimeSpan.FromSeconds(30), "the shard to be at its home");
        await shard.SetMany(keys, values, ShardExpiry.Never, CacheEntryFlags.None);

        // Acknowledged, so the silo that does not host the shard has applied it.
        var keeper = silos.Select(static silo => silo.ServiceProvider.GetRequiredService<ShardReplicas>()).Single(replicas => replicas.PositionOf(Slot) is not null);
        var position = keeper.PositionOf(Slot)!.Value;
        var newer = position.Epoch + 1;

        var copy = await keeper.HandOverAsync(Slot, newer);
        Assert.NotNull(copy);
        Assert.Equal(position, copy.Position);
        Assert.Equal(keys.Select(Encoding.UTF8.GetString).Order(), KeysIn(copy).Order());

        // Kept and still reported: a new primary that could not install the copy asks again and gets it again.
        Assert.Equal(position, keeper.PositionOf(Slot));
        var again = await keeper.HandOverAsync(Slot, newer);
        Assert.NotNull(again);
        Assert.Equal(KeysIn(copy).Order(), KeysIn(again).Order());

        // The old primary's replica now refuses it, so it cannot acknowledge a write that the new one would not have.
        var write = Encoding.UTF8.GetBytes("value after the hand-over");
        await Assert.ThrowsAsync<InvalidOperationException>(async () => await shard.Set(keys[0], write, ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always));
        Assert.Equal(position, keeper.PositionOf(Slot));

        // Once the new primary's replicas are in step it has every silo forget copies of older epochs.
        keeper.Forget(Slot, newer - 1);
        await Poll.UntilAsync(() => keeper.PositionOf(Slot) is null, TimeSpan.FromSeconds(10), "the frozen copy to be forgotten");
    }

    [Fact]
    public async Task A_snapshot_older_than_what_the_replica_applied_leaves_the_replica_where_it_is()
    {
        await using var cluster = await ShardCluster.StartAsync(2);
        var silos = cluster.Cluster.GetActiveSilos().ToArray();
        var shard = cluster.Grains.GetGrain<IShardGrain>(Slot);
        var (keys, values) = Entries("late");
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

    /// <summary><see cref="Keys"/> keys of the shard, each with a value of its own.</summary>
    private static (byte[][] Keys, byte[][] Values) Entries(string prefix)
    {
        var keys = Enumerable.Range(0, 100_000).Select(i => Encoding.UTF8.GetBytes($"{prefix}:{i}")).Where(static key => Shards.SlotOf(key) == Slot).Take(Keys).ToArray();
        return (keys, [.. keys.Select(static key => Encoding.UTF8.GetBytes("value of " + Encoding.UTF8.GetString(key)))]);
    }

    private static List<string> KeysIn(ReplicaCopy copy)
    {
        var keys = new List<string>();
        foreach (var chunk in copy.Chunks)
        {
            var reader = new MigrationChunkReader(chunk);
            while (reader.TryRead(out var entry))
            {
                keys.Add(Encoding.UTF8.GetString(entry.Key));
            }
        }

        return keys;
    }
}
