using System.Globalization;
using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class TurnAtomicityTests
{
    [Fact]
    public void Concurrent_increments_of_one_key_lose_no_update()
    {
        const int threads = 4;
        const int increments = 20_000;
        using var host = new SingleGrain();
        var key = SingleGrain.Bytes("counter");

        Concurrently.Run(threads, _ =>
        {
            for (var i = 0; i < increments; i++)
            {
                Assert.Equal(UpdateStatus.Ok, host.Grain.IncrementBy(key, 1, out var _));
            }
        });

        Assert.Equal((threads * increments).ToString(CultureInfo.InvariantCulture), host.Get("counter"));
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
    }

    [Fact]
    public void Concurrent_sliding_reads_and_writes_never_see_a_torn_value()
    {
        const int writers = 2;
        const int operations = 20_000;
        using var host = new SingleGrain();
        var key = SingleGrain.Bytes("k");
        var request = new SetRequest(WriteCondition.Always, new ExpirySpec(0, SlidingWindow: 60_000));
        var none = default(NoReader);
        host.Grain.Set(key, Filled(0, 256), request, ref none);
        var torn = 0;
        var misses = 0;

        Concurrently.Run(4, thread =>
        {
            if (thread < writers)
            {
                // Same-length values are copied into the stored array in place, the likeliest place to tear.
                var values = Enumerable.Range(0, 8).Select(i => Filled((byte)((thread * 8) + i + 1), i % 4 == 0 ? 100 : 256)).ToArray();
                var ignore = default(NoReader);
                for (var i = 0; i < operations; i++)
                {
                    host.Grain.Set(key, values[i % values.Length], request, ref ignore);
                }
            }
            else
            {
                var check = default(UniformValueReader);
                for (var i = 0; i < operations; i++)
                {
                    if (!host.Grain.Read(key, slide: true, ref check))
                    {
                        Interlocked.Increment(ref misses);
                    }
                }

                Interlocked.Add(ref torn, check.Torn);
            }
        });

        Assert.Equal(0, misses);
        Assert.Equal(0, torn);
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
    }

    private static byte[] Filled(byte value, int length)
    {
        var bytes = new byte[length];
        Array.Fill(bytes, value);
        return bytes;
    }
}
