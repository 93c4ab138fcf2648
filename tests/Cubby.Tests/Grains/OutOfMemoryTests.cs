using System.Runtime.CompilerServices;
using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class OutOfMemoryTests
{
    // A block holds the entry's header, its key and its value. A two-byte key and a value of this many bytes fill a
    // 96-byte block, so growing the value by one byte takes the next block size (112).
    private static readonly int FillingLength = 96 - Unsafe.SizeOf<EntryHeader>() - 2;

    private static readonly string Value = Text('a', FillingLength);

    private static readonly long EntrySize = SizeOf(2, Value.Length);

    private static string Text(char first, int length) => string.Create(length, first, static (span, first) =>
    {
        for (var i = 0; i < span.Length; i++)
        {
            span[i] = (char)(first + (i % 26));
        }
    });

    private static long SizeOf(int keyLength, int valueLength)
    {
        using var sizer = new EntryStore();
        return sizer.SizeOf(keyLength, valueLength);
    }

    // Room for exactly ten entries of a two-byte key and <paramref name="value"/>.
    private static SingleGrain FullGrain(string? value = null)
    {
        value ??= Value;
        var host = new SingleGrain(maxMemoryBytes: 10 * SizeOf(2, value.Length), maxValueBytes: 1000);
        for (var i = 0; i < 10; i++)
        {
            Assert.Equal(SetStatus.Created, host.Set($"k{i}", value));
        }

        Assert.Equal(host.Budget.Limit, host.Budget.Used);
        return host;
    }

    [Fact]
    public void A_new_entry_that_does_not_fit_is_refused_and_nothing_changes()
    {
        using var host = FullGrain();

        Assert.Equal(SetStatus.OutOfMemory, host.Set("kx", Value));
        Assert.Equal(SetStatus.OutOfMemory, host.Set("y", ""));

        Assert.Equal(10, host.Grain.Count);
        Assert.Null(host.Get("kx"));
        Assert.Equal(host.Budget.Limit, host.Budget.Used);
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
    }

    [Fact]
    public void Growing_an_entry_past_the_budget_is_refused_and_keeps_the_old_value()
    {
        using var host = FullGrain();

        // The value fills its block: growing by a byte takes the next block size.
        Assert.Equal(SetStatus.OutOfMemory, host.Set("k3", Value + "!"));

        Assert.Equal(Value, host.Get("k3"));
        Assert.Equal(host.Budget.Limit, host.Budget.Used);
    }

    [Fact]
    public void Overwrites_that_do_not_grow_still_succeed_when_full_and_shrinking_frees_room()
    {
        using var host = FullGrain();

        // Same length, and shorter within the same block size, cost nothing; shorter into a smaller block frees the
        // difference, which lets another value grow into a larger block by as much.
        Assert.Equal(SetStatus.Updated, host.Set("k3", Text('A', FillingLength)));
        Assert.Equal(SetStatus.Updated, host.Set("k2", Text('0', FillingLength - 15)));
        Assert.Equal(host.Budget.Limit, host.Budget.Used);
        Assert.Equal(SetStatus.Updated, host.Set("k4", ""));
        var freed = EntrySize - SizeOf(2, 0);
        Assert.Equal(host.Budget.Limit - freed, host.Budget.Used);
        var grown = Text('A', FillingLength + (int)freed);
        Assert.Equal(SetStatus.Updated, host.Set("k5", grown));

        Assert.Equal(host.Budget.Limit, host.Budget.Used);
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
        Assert.Equal(grown, host.Get("k5"));
    }

    [Fact]
    public void Removing_an_entry_makes_room_for_another()
    {
        using var host = FullGrain();

        Assert.True(host.Grain.Remove(SingleGrain.Bytes("k0")));
        Assert.Equal(host.Budget.Limit - EntrySize, host.Budget.Used);

        Assert.Equal(SetStatus.Created, host.Set("kx", Value));
        Assert.Equal(host.Budget.Limit, host.Budget.Used);
    }

    [Fact]
    public void Read_modify_writes_report_OutOfMemory_when_they_would_grow_past_the_budget()
    {
        // With a two-byte key, a six-digit number fills a 64-byte block, so any growth needs more budget.
        Assert.Equal(64, Unsafe.SizeOf<EntryHeader>() + 2 + 6);
        using var host = FullGrain("123456");

        Assert.Equal(UpdateStatus.OutOfMemory, host.Grain.IncrementBy(SingleGrain.Bytes("k1"), 9_000_000_000_000_000, out _));
        Assert.Equal(UpdateStatus.OutOfMemory, host.Grain.IncrementBy(SingleGrain.Bytes("new"), 1, out _));
        Assert.Equal(UpdateStatus.OutOfMemory, host.Grain.IncrementByFloat(SingleGrain.Bytes("k1"), 0.5, new byte[Cubby.Text.RedisNumber.MaxDoubleLength], out _));
        Assert.Equal(UpdateStatus.OutOfMemory, host.Grain.Append(SingleGrain.Bytes("k2"), SingleGrain.Bytes("!"), out _));
        Assert.Equal(UpdateStatus.OutOfMemory, host.Grain.SetRange(SingleGrain.Bytes("k2"), 6, SingleGrain.Bytes("!"), out _));

        Assert.Equal("123456", host.Get("k1"));
        Assert.Equal("123456", host.Get("k2"));
        Assert.Null(host.Get("new"));
        Assert.Equal(host.Budget.Limit, host.Budget.Used);
        Assert.Equal(UpdateStatus.Ok, host.Grain.IncrementBy(SingleGrain.Bytes("k1"), 1, out var result));
        Assert.Equal(123457, result);
    }

    [Fact]
    public void Clear_and_Dispose_give_the_grains_bytes_back_to_the_budget()
    {
        var host = FullGrain();

        Assert.Equal(10, host.Grain.Clear());
        Assert.Equal(0, host.Budget.Used);
        Assert.Equal(SetStatus.Created, host.Set("k", "v"));
        Assert.True(host.Budget.Used > 0);

        host.Dispose();
        Assert.Equal(0, host.Budget.Used);
    }
}
