using System.Text;
using Cubby.Grains;
using Cubby.Grains.Hosting;
using Cubby.Grains.Placement;
using Cubby.Sharding;
using Cubby.Tests.Client;
using Microsoft.Extensions.DependencyInjection;
using Orleans.TestingHost;
using Xunit.Abstractions;

namespace Cubby.Tests.Orleans;

/// <summary>
/// When a join moves a shard's replica to the new silo, the replica it had keeps acknowledging its writes until the new
/// one is in step: writes do not wait for the new replica's snapshot.
/// </summary>
public sealed class ReplicaMoveTests(ITestOutputHelper output)
{
    private const int Slots = 32;
    private static readonly ShardMap Shards = new(Slots);
    private static readonly TimeSpan WriteDeadline = TimeSpan.FromSeconds(20);

    /// <summary>
    /// The joining silo holds every snapshot sent to it (an incoming call filter keeps the calls waiting), as a slow
    /// link or a large shard would: a shard whose new replica it is can only go on acknowledging writes through the
    /// replica the ranking moved away from. Before, every write to such a shard waited for the snapshot, here for good.
    /// </summary>
    [Fact]
    public async Task Writes_to_a_shard_whose_replica_moves_to_a_joining_silo_do_not_wait_for_the_new_replica_s_snapshot()
    {
        var snapshots = new HeldSnapshots();
        await using var cluster = await ShardCluster.StartAsync(2, new ShardOptions { SlotCount = Slots, KeptForReuseBytes = 0, MaxMemoryBytes = 64L * 1024 * 1024 }, configureSilo: (order, silo) =>
        {
            if (order == 2)
            {
                silo.AddIncomingGrainCallFilter(snapshots.Hold);
            }
        });
        try
        {
            foreach (var slot in Enumerable.Range(0, Slots))
            {
                await cluster.Grains.GetGrain<IShardGrain>(slot).Set(KeyIn(slot), Encoding.UTF8.GetBytes("before the join"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always);
            }

            var joined = await cluster.Cluster.StartAdditionalSiloAsync();
            var first = cluster.Cluster.GetActiveSilos().Where(silo => silo != joined).ToArray();
            await Poll.UntilAsync(() => first.All(static silo => silo.ServiceProvider.GetRequiredService<ShardHomes>().Homes().Length == 3), TimeSpan.FromSeconds(30), "both silos to rank the joined one");

            // Shards that stay on their silo and whose one replica now belongs on the joined silo.
            var moved = first.SelectMany(silo => ReplicaMovedToJoined(silo, joined)).ToArray();
            output.WriteLine($"{moved.Length} of {Slots} shards keep their primary and move their replica to the joined silo");
            Assert.NotEmpty(moved);
            await Poll.UntilAsync(() => snapshots.Held >= moved.Length, TimeSpan.FromSeconds(30), "every moved shard to send the joined silo its snapshot");

            var written = 0;
            foreach (var slot in moved)
            {
                for (var i = 0; i < 10; i++)
                {
                    var value = Encoding.UTF8.GetBytes($"write {written++}");
                    var shard = cluster.Grains.GetGrain<IShardGrain>(slot);
                    await shard.Set(KeyIn(slot), value, ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always).AsTask().WaitAsync(WriteDeadline);
                    Assert.Equal(value, (await shard.Get(KeyIn(slot), slide: false))?.Value);
                }
            }

            output.WriteLine($"{written} writes acknowledged while {snapshots.Held} snapshots were held");
        }
        finally
        {
            snapshots.Release();
        }
    }

    private static int[] ReplicaMovedToJoined(InProcessSiloHandle silo, InProcessSiloHandle joined)
    {
        var homes = silo.ServiceProvider.GetRequiredService<ShardHomes>();
        var catalog = silo.ServiceProvider.GetRequiredService<ShardCatalog>();
        return [.. Enumerable.Range(0, Slots).Where(slot =>
            catalog.Find(slot) is { IsOpen: true }
            && homes.HomeOf(slot).Equals(homes.Self)
            && homes.ReplicasOf(slot, 1) is [var replica] && replica.Equals(joined.SiloAddress))];
    }

    private static byte[] KeyIn(int slot) =>
        Enumerable.Range(0, 100_000).Select(static i => Encoding.UTF8.GetBytes($"moving:{i}")).First(key => Shards.SlotOf(key) == slot);

    /// <summary>Keeps every replica snapshot arriving at a silo waiting until released.</summary>
    private sealed class HeldSnapshots
    {
        private readonly TaskCompletionSource _released = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _held;

        public int Held => Volatile.Read(ref _held);

        public async Task Hold(IIncomingGrainCallContext context)
        {
            if (context.InterfaceName.Contains("IShardReplicaService", StringComparison.Ordinal) && context.MethodName == "Install")
            {
                Interlocked.Increment(ref _held);
                await _released.Task;
            }

            await context.Invoke();
        }

        public void Release() => _released.TrySetResult();
    }
}
