using System.Globalization;
using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

/// <summary>
/// Callers on several threads, each taking the shard's turn around an operation as a command does: no increment lost,
/// no value read half-written.
/// </summary>
public sealed class TurnAtomicityTests
{
    [Fact]
    public void Concurrent_increments_of_one_key_lose_no_update()
    {
        const int threads = 4;
        const int increments = 20_000;
        using var host = new SingleGrain(heldByCreator: false);
        var key = SingleGrain.Bytes("counter");

        Concurrently.Run(threads, _ =>
        {
            for (var i = 0; i < increments; i++)
            {
                using var turn = host.Grain.TakeTurn();
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
        using var host = new SingleGrain(heldByCreator: false);
        var key = SingleGrain.Bytes("k");
        var request = new SetRequest(WriteCondition.Always, new ExpirySpec(0, SlidingWindow: 60_000));
        var none = default(NoReader);
        using (host.Grain.TakeTurn())
        {
            host.Grain.Set(key, Filled(0, 256), request, ref none);
        }

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
                    using var turn = host.Grain.TakeTurn();
                    host.Grain.Set(key, values[i % values.Length], request, ref ignore);
                }
            }
            else
            {
                var check = default(UniformValueReader);
                for (var i = 0; i < operations; i++)
                {
                    using var turn = host.Grain.TakeTurn();
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

    [Fact]
    public void An_entry_operation_outside_the_shards_turn_is_refused()
    {
        using var host = new SingleGrain(heldByCreator: false);
        var key = SingleGrain.Bytes("k");

        var error = Assert.Throws<InvalidOperationException>(() => host.Grain.Exists(key));

        Assert.Contains("without the shard's turn", error.Message, StringComparison.Ordinal);
        using (host.Grain.TakeTurn())
        {
            Assert.False(host.Grain.Exists(key));
        }
    }

    private static byte[] Filled(byte value, int length)
    {
        var bytes = new byte[length];
        Array.Fill(bytes, value);
        return bytes;
    }
}
