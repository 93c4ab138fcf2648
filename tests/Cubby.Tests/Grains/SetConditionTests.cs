using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class SetConditionTests
{
    [Fact]
    public void Always_creates_then_updates()
    {
        using var host = new SingleGrain();

        Assert.Equal(SetStatus.Created, host.Set("k", "one"));
        Assert.Equal(SetStatus.Updated, host.Set("k", "two"));

        Assert.Equal("two", host.Get("k"));
        Assert.Equal(1, host.Grain.Count);
    }

    [Fact]
    public void IfAbsent_writes_only_a_missing_key()
    {
        using var host = new SingleGrain();

        Assert.Equal(SetStatus.Created, host.Set("k", "one", condition: WriteCondition.IfAbsent));
        var used = host.Budget.Used;
        Assert.Equal(SetStatus.NotStored, host.Set("k", "a longer two", condition: WriteCondition.IfAbsent));

        Assert.Equal("one", host.Get("k"));
        Assert.Equal(used, host.Budget.Used);
    }

    [Fact]
    public void IfPresent_writes_only_an_existing_key()
    {
        using var host = new SingleGrain();

        Assert.Equal(SetStatus.NotStored, host.Set("k", "one", condition: WriteCondition.IfPresent));
        Assert.False(host.Grain.Exists(SingleGrain.Bytes("k")));
        Assert.Equal(0, host.Budget.Used);

        host.Set("k", "one");
        Assert.Equal(SetStatus.Updated, host.Set("k", "two", condition: WriteCondition.IfPresent));
        Assert.Equal("two", host.Get("k"));
    }

    [Fact]
    public void A_condition_that_fails_leaves_the_expiry_and_flags_alone()
    {
        using var host = new SingleGrain();
        var deadline = host.Now + 1000;
        host.Set("k", "one", new ExpirySpec(deadline), flags: 5);

        host.Set("k", "two", ExpirySpec.Never, WriteCondition.IfAbsent, flags: 9);

        var metadata = host.Metadata("k")!.Value;
        Assert.Equal(deadline, metadata.ExpiresAt);
        Assert.Equal(5u, metadata.Flags);
    }

    [Theory]
    [InlineData(nameof(WriteCondition.Always), nameof(SetStatus.Updated))]
    [InlineData(nameof(WriteCondition.IfAbsent), nameof(SetStatus.NotStored))]
    [InlineData(nameof(WriteCondition.IfPresent), nameof(SetStatus.Updated))]
    public void The_previous_value_reader_sees_the_old_value_whether_or_not_the_write_applies(string condition, string expected)
    {
        using var host = new SingleGrain();
        var deadline = host.Now + 1000;
        host.Set("k", "old", new ExpirySpec(deadline), flags: 3);
        var previous = new CapturingReader();

        var status = host.Grain.Set(SingleGrain.Bytes("k"), SingleGrain.Bytes("new"), new SetRequest(Enum.Parse<WriteCondition>(condition), ExpirySpec.Never), ref previous);

        Assert.Equal(Enum.Parse<SetStatus>(expected), status);
        Assert.Equal(1, previous.Calls);
        Assert.Equal("old", previous.Text);
        Assert.Equal(3u, previous.Metadata.Flags);
        Assert.Equal(deadline, previous.Metadata.ExpiresAt);
        Assert.Equal(host.Now, previous.Now);
    }

    [Fact]
    public void The_previous_value_reader_is_not_called_for_a_missing_key()
    {
        using var host = new SingleGrain();
        var previous = new CapturingReader();

        var status = host.Grain.Set(SingleGrain.Bytes("k"), SingleGrain.Bytes("new"), new SetRequest(WriteCondition.Always, ExpirySpec.Never), ref previous);

        Assert.Equal(SetStatus.Created, status);
        Assert.Equal(0, previous.Calls);
    }

    [Fact]
    public void Flags_are_stored_with_the_entry_and_replaced_by_the_next_write()
    {
        using var host = new SingleGrain();
        var compressed = (uint)CacheEntryFlags.Compressed;

        host.Set("k", "v", flags: compressed);
        var reader = new CapturingReader();
        Assert.True(host.Grain.Read(SingleGrain.Bytes("k"), slide: false, ref reader));
        Assert.Equal(compressed, reader.Metadata.Flags);
        Assert.Equal(compressed, host.Metadata("k")!.Value.Flags);

        host.Set("k", "v2", flags: 0xDEADBEEF);
        Assert.Equal(0xDEADBEEF, host.Metadata("k")!.Value.Flags);

        host.Set("k", "v3");
        Assert.Equal(0u, host.Metadata("k")!.Value.Flags);
    }

    [Fact]
    public void Remove_and_ReadAndRemove_delete_and_release_the_budget()
    {
        using var host = new SingleGrain();
        host.Set("a", "1");
        host.Set("b", "2");
        var reader = new CapturingReader();

        Assert.True(host.Grain.Remove(SingleGrain.Bytes("a")));
        Assert.False(host.Grain.Remove(SingleGrain.Bytes("a")));
        Assert.True(host.Grain.ReadAndRemove(SingleGrain.Bytes("b"), ref reader));
        Assert.False(host.Grain.ReadAndRemove(SingleGrain.Bytes("b"), ref reader));

        Assert.Equal("2", reader.Text);
        Assert.Equal(1, reader.Calls);
        Assert.Equal(0, host.Grain.Count);
        Assert.Equal(0, host.Budget.Used);
    }
}
