using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class ShardAllocationTests
{
    private const int Iterations = 20_000;

    [Fact]
    public void Read_of_a_hit_allocates_nothing_after_warm_up()
    {
        using var host = new SingleGrain();
        var key = SingleGrain.Bytes("alloc:read");
        var slidingKey = SingleGrain.Bytes("alloc:sliding");
        var value = new byte[100];
        Array.Fill(value, (byte)3);
        var none = default(NoReader);
        host.Grain.Set(key, value, new SetRequest(WriteCondition.Always, ExpirySpec.Never), ref none);
        host.Grain.Set(slidingKey, value, new SetRequest(WriteCondition.Always, new ExpirySpec(0, SlidingWindow: 60_000)), ref none);
        var reader = default(ByteSumReader);
        ReadMany(host.Grain, key, slidingKey, ref reader);
        reader.Sum = 0;

        var before = GC.GetAllocatedBytesForCurrentThread();
        ReadMany(host.Grain, key, slidingKey, ref reader);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(0, allocated);
        Assert.Equal(2L * Iterations * 300, reader.Sum);
    }

    [Fact]
    public void Set_overwriting_a_value_of_the_same_length_allocates_nothing_after_warm_up()
    {
        using var host = new SingleGrain();
        var key = SingleGrain.Bytes("alloc:set");
        var first = new byte[100];
        var second = new byte[100];
        Array.Fill(first, (byte)1);
        Array.Fill(second, (byte)2);
        var request = new SetRequest(WriteCondition.Always, new ExpirySpec(host.Now + 60_000), Flags: 1);
        SetMany(host.Grain, key, first, second, request);
        var used = host.Budget.Used;

        var before = GC.GetAllocatedBytesForCurrentThread();
        var updated = SetMany(host.Grain, key, first, second, request);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(0, allocated);
        Assert.Equal(Iterations, updated);
        Assert.Equal(used, host.Budget.Used);
        Assert.Equal(1, host.Grain.Count);
        var reader = default(ByteSumReader);
        Assert.True(host.Grain.Read(key, slide: false, ref reader));
        Assert.Equal(200, reader.Sum);
    }

    private static void ReadMany(Shard grain, byte[] key, byte[] slidingKey, ref ByteSumReader reader)
    {
        for (var i = 0; i < Iterations; i++)
        {
            if (!grain.Read(key, slide: true, ref reader) || !grain.Read(slidingKey, slide: true, ref reader))
            {
                throw new InvalidOperationException("The entry should be there.");
            }
        }
    }

    private static int SetMany(Shard grain, byte[] key, byte[] first, byte[] second, in SetRequest request)
    {
        var none = default(NoReader);
        var updated = 0;
        for (var i = 0; i < Iterations; i++)
        {
            if (grain.Set(key, (i & 1) == 0 ? first : second, request, ref none) == SetStatus.Updated)
            {
                updated++;
            }
        }

        return updated;
    }
}
