using System.Text;
using Cubby.Grains;
using Cubby.Grains.Hosting;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class ConcurrentCapacityTests
{
    private const int Threads = 4;
    private const int WritesPerThread = 3000;

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void Concurrent_writers_into_a_full_budget_evict_and_never_get_OutOfMemory_or_pass_the_limit(StoreKind kind)
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 16, MaxMemoryBytes = 64 * 1024 }, kind);
        var budget = host.Catalog.Budget;
        var keys = Enumerable.Range(0, 1000).Select(i => Encoding.UTF8.GetBytes($"key:{i}")).ToArray();
        var overLimit = 0;
        var refused = 0;

        Concurrently.Run(Threads, seed =>
        {
            var random = new Random(seed);
            var none = default(NoReader);
            var request = new SetRequest(WriteCondition.Always, ExpirySpec.Never);
            for (var i = 0; i < WritesPerThread; i++)
            {
                var key = keys[random.Next(keys.Length)];
                var value = new byte[random.Next(0, 600)];
                // Each write in its own turn, as a command's: eviction then takes other shards' turns while this one's is held.
                var shard = host.Catalog.GetOrCreate(key);
                bool written;
                using (shard.TakeTurn())
                {
                    written = i % 3 == 0
                        ? shard.Append(key, value, out _) != UpdateStatus.OutOfMemory
                        : shard.Set(key, value, request, ref none) != SetStatus.OutOfMemory;
                }

                if (!written)
                {
                    Interlocked.Increment(ref refused);
                }

                if (budget.Used > budget.Limit)
                {
                    Interlocked.Increment(ref overLimit);
                }
            }
        });

        Assert.Equal(0, refused);
        Assert.Equal(0, overLimit);
        Assert.InRange(budget.Used, 1, budget.Limit);
        Assert.Equal(host.GrainBytes(), budget.Used);
        Assert.True(host.EvictedCount() > 0);
    }
}
