using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class AppendAndSetRangeTests
{
    [Fact]
    public void Append_to_an_absent_key_creates_it()
    {
        using var host = new SingleGrain();

        Assert.Equal(UpdateStatus.Ok, host.Grain.Append(SingleGrain.Bytes("k"), SingleGrain.Bytes("hello"), out var length));

        Assert.Equal(5, length);
        Assert.Equal("hello", host.Get("k"));
        Assert.Equal(-1, host.Ttl("k"));
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
    }

    [Fact]
    public void Append_adds_to_the_end_and_keeps_the_expiry()
    {
        using var host = new SingleGrain();
        var deadline = host.Now + 1000;
        host.Set("k", "hello", new ExpirySpec(deadline), flags: 2);

        Assert.Equal(UpdateStatus.Ok, host.Grain.Append(SingleGrain.Bytes("k"), SingleGrain.Bytes(" world"), out var length));
        Assert.Equal(UpdateStatus.Ok, host.Grain.Append(SingleGrain.Bytes("k"), [], out var unchanged));

        Assert.Equal(11, length);
        Assert.Equal(11, unchanged);
        Assert.Equal("hello world", host.Get("k"));
        Assert.Equal(deadline, host.Metadata("k")!.Value.ExpiresAt);
        Assert.Equal(2u, host.Metadata("k")!.Value.Flags);
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
    }

    [Fact]
    public void Append_up_to_the_value_limit_succeeds_and_past_it_reports_TooLarge()
    {
        using var host = new SingleGrain(maxValueBytes: 10);
        host.Set("k", "12345");

        Assert.Equal(UpdateStatus.TooLarge, host.Grain.Append(SingleGrain.Bytes("k"), SingleGrain.Bytes("678901"), out var tooLong));
        Assert.Equal(11, tooLong);
        Assert.Equal("12345", host.Get("k"));

        Assert.Equal(UpdateStatus.Ok, host.Grain.Append(SingleGrain.Bytes("k"), SingleGrain.Bytes("67890"), out var length));
        Assert.Equal(10, length);
        Assert.Equal("1234567890", host.Get("k"));

        Assert.Equal(UpdateStatus.TooLarge, host.Grain.Append(SingleGrain.Bytes("new"), new byte[11], out _));
        Assert.Null(host.Get("new"));
    }

    [Fact]
    public void SetRange_past_the_end_pads_with_zero_bytes()
    {
        using var host = new SingleGrain();
        host.Set("k", "ab");

        Assert.Equal(UpdateStatus.Ok, host.Grain.SetRange(SingleGrain.Bytes("k"), 5, SingleGrain.Bytes("xy"), out var length));

        Assert.Equal(7, length);
        Assert.Equal("ab\0\0\0xy", host.Get("k"));
    }

    [Fact]
    public void SetRange_of_an_absent_key_creates_it_zero_padded()
    {
        using var host = new SingleGrain();

        Assert.Equal(UpdateStatus.Ok, host.Grain.SetRange(SingleGrain.Bytes("k"), 3, SingleGrain.Bytes("z"), out var length));

        Assert.Equal(4, length);
        Assert.Equal("\0\0\0z", host.Get("k"));
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
    }

    [Fact]
    public void SetRange_in_the_middle_patches_and_keeps_the_rest_and_the_expiry()
    {
        using var host = new SingleGrain();
        var deadline = host.Now + 1000;
        host.Set("k", "Hello World", new ExpirySpec(deadline));

        Assert.Equal(UpdateStatus.Ok, host.Grain.SetRange(SingleGrain.Bytes("k"), 6, SingleGrain.Bytes("Redis"), out var length));
        Assert.Equal(11, length);
        Assert.Equal("Hello Redis", host.Get("k"));

        Assert.Equal(UpdateStatus.Ok, host.Grain.SetRange(SingleGrain.Bytes("k"), 0, SingleGrain.Bytes("J"), out length));
        Assert.Equal(11, length);
        Assert.Equal("Jello Redis", host.Get("k"));

        Assert.Equal(UpdateStatus.Ok, host.Grain.SetRange(SingleGrain.Bytes("k"), 9, SingleGrain.Bytes("ing"), out length));
        Assert.Equal(12, length);
        Assert.Equal("Jello Reding", host.Get("k"));
        Assert.Equal(deadline, host.Metadata("k")!.Value.ExpiresAt);
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
    }

    [Fact]
    public void SetRange_with_an_empty_patch_on_an_absent_key_creates_nothing()
    {
        using var host = new SingleGrain();

        Assert.Equal(UpdateStatus.Ok, host.Grain.SetRange(SingleGrain.Bytes("k"), 100, [], out var length));

        Assert.Equal(0, length);
        Assert.False(host.Grain.Exists(SingleGrain.Bytes("k")));
        Assert.Equal(0, host.Budget.Used);
    }

    [Fact]
    public void SetRange_with_an_empty_patch_reports_the_current_length_and_changes_nothing()
    {
        using var host = new SingleGrain();
        host.Set("k", "abc");

        Assert.Equal(UpdateStatus.Ok, host.Grain.SetRange(SingleGrain.Bytes("k"), 100, [], out var length));

        Assert.Equal(3, length);
        Assert.Equal("abc", host.Get("k"));
    }

    [Theory]
    [InlineData(8, "xyz")]
    [InlineData(11, "")]
    [InlineData(536_870_912, "x")]
    [InlineData(long.MaxValue / 2, "x")]
    public void SetRange_that_would_exceed_the_value_limit_reports_TooLarge_unless_the_patch_is_empty(long offset, string patch)
    {
        using var host = new SingleGrain(maxValueBytes: 10);
        host.Set("k", "abc");

        var status = host.Grain.SetRange(SingleGrain.Bytes("k"), offset, SingleGrain.Bytes(patch), out _);

        Assert.Equal(patch.Length == 0 ? UpdateStatus.Ok : UpdateStatus.TooLarge, status);
        Assert.Equal("abc", host.Get("k"));
    }

    [Fact]
    public void SetRange_up_to_exactly_the_value_limit_succeeds()
    {
        using var host = new SingleGrain(maxValueBytes: 10);

        Assert.Equal(UpdateStatus.Ok, host.Grain.SetRange(SingleGrain.Bytes("k"), 7, SingleGrain.Bytes("xyz"), out var length));

        Assert.Equal(10, length);
        Assert.Equal("\0\0\0\0\0\0\0xyz", host.Get("k"));
    }
}
