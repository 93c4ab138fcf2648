using System.Text;
using Cubby.Grains;
using Cubby.Grains.Capacity;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class ConcurrentCapacityTests
{
    private const int Threads = 4;
    private const int WritesPerThread = 3000;
    private const int MaxAttempts = 10_000;

    [Fact]
    public void Concurrent_writers_with_eviction_never_push_the_budget_past_its_limit()
    {
        using var host = new CatalogHost(new GrainSettings { SlotCount = 16, MaxMemoryBytes = 64 * 1024 });
        var budget = host.Catalog.Budget;
        var evictor = new Evictor(host.Catalog);
        var keys = Enumerable.Range(0, 1000).Select(i => Encoding.UTF8.GetBytes($"key:{i}")).ToArray();
        var overLimit = 0;
        var gaveUp = 0;
        var stored = 0;

        Concurrently.Run(Threads, seed =>
        {
            var random = new Random(seed);
            var none = default(NoReader);
            var request = new SetRequest(WriteCondition.Always, ExpirySpec.Never);
            for (var i = 0; i < WritesPerThread; i++)
            {
                var key = keys[random.Next(keys.Length)];
                var value = new byte[random.Next(0, 600)];
                var grain = host.Catalog.GrainFor(key);
                var attempts = 0;
                while (true)
                {
                    evictor.MakeRoom(host.Catalog.EstimateSize(key.Length, value.Length));
                    var status = grain.Set(key, value, request, ref none);
                    if (budget.Used > budget.Limit)
                    {
                        Interlocked.Increment(ref overLimit);
                    }

                    if (status != SetStatus.OutOfMemory)
                    {
                        Interlocked.Increment(ref stored);
                        break;
                    }

                    if (++attempts == MaxAttempts)
                    {
                        Interlocked.Increment(ref gaveUp);
                        break;
                    }
                }
            }
        });

        Assert.Equal(0, overLimit);
        Assert.Equal(0, gaveUp);
        Assert.Equal(Threads * WritesPerThread, stored);
        Assert.InRange(budget.Used, 1, budget.Limit);
        Assert.Equal(host.GrainBytes(), budget.Used);
        Assert.True(host.EvictedCount() > 0);
    }
}
