using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class ExpireCommandTests
{
    private const long Existing = 10_000;

    // Each row: the entry's expiry (ms from now, 0 for none), the condition, the new expiry (ms from now), whether it applies.
    [Theory]
    [InlineData(0, nameof(ExpireCondition.Always), 5000, true)]
    [InlineData(Existing, nameof(ExpireCondition.Always), 20_000, true)]
    [InlineData(Existing, nameof(ExpireCondition.Always), 5000, true)]
    [InlineData(0, nameof(ExpireCondition.IfNoExpiry), 5000, true)]
    [InlineData(Existing, nameof(ExpireCondition.IfNoExpiry), 5000, false)]
    [InlineData(0, nameof(ExpireCondition.IfHasExpiry), 5000, false)]
    [InlineData(Existing, nameof(ExpireCondition.IfHasExpiry), 5000, true)]
    [InlineData(Existing, nameof(ExpireCondition.IfHasExpiry), 20_000, true)]
    [InlineData(0, nameof(ExpireCondition.IfGreater), 5000, false)]
    [InlineData(Existing, nameof(ExpireCondition.IfGreater), 20_000, true)]
    [InlineData(Existing, nameof(ExpireCondition.IfGreater), Existing, false)]
    [InlineData(Existing, nameof(ExpireCondition.IfGreater), 5000, false)]
    [InlineData(0, nameof(ExpireCondition.IfLess), 5000, true)]
    [InlineData(Existing, nameof(ExpireCondition.IfLess), 5000, true)]
    [InlineData(Existing, nameof(ExpireCondition.IfLess), Existing, false)]
    [InlineData(Existing, nameof(ExpireCondition.IfLess), 20_000, false)]
    [InlineData(0, nameof(ExpireCondition.IfLessWithExpiry), 5000, false)]
    [InlineData(Existing, nameof(ExpireCondition.IfLessWithExpiry), 5000, true)]
    [InlineData(Existing, nameof(ExpireCondition.IfLessWithExpiry), 20_000, false)]
    public void Expire_applies_only_when_its_condition_holds(long current, string condition, long requested, bool applies)
    {
        using var host = new SingleGrain();
        host.Set("k", "v", current == 0 ? ExpirySpec.Never : new ExpirySpec(host.Now + current));

        var result = host.Grain.Expire(SingleGrain.Bytes("k"), host.Now + requested, Enum.Parse<ExpireCondition>(condition));

        Assert.Equal(applies, result);
        Assert.Equal(applies ? requested : current == 0 ? -1 : current, host.Ttl("k"));
        Assert.Equal("v", host.Get("k"));
    }

    [Theory]
    [InlineData(0, nameof(ExpireCondition.Always))]
    [InlineData(Existing, nameof(ExpireCondition.Always))]
    [InlineData(0, nameof(ExpireCondition.IfNoExpiry))]
    [InlineData(Existing, nameof(ExpireCondition.IfHasExpiry))]
    [InlineData(0, nameof(ExpireCondition.IfLess))]
    [InlineData(Existing, nameof(ExpireCondition.IfLess))]
    [InlineData(Existing, nameof(ExpireCondition.IfLessWithExpiry))]
    public void Expire_at_or_before_now_deletes_the_entry_when_the_condition_holds(long current, string condition)
    {
        using var host = new SingleGrain();
        host.Set("now", "v", current == 0 ? ExpirySpec.Never : new ExpirySpec(host.Now + current));
        host.Set("past", "v", current == 0 ? ExpirySpec.Never : new ExpirySpec(host.Now + current));
        Assert.True(host.Budget.Used > 0);

        Assert.True(host.Grain.Expire(SingleGrain.Bytes("now"), host.Now, Enum.Parse<ExpireCondition>(condition)));
        Assert.True(host.Grain.Expire(SingleGrain.Bytes("past"), host.Now - 60_000, Enum.Parse<ExpireCondition>(condition)));

        Assert.Equal(0, host.Grain.Count);
        Assert.Null(host.Get("now"));
        Assert.Null(host.Get("past"));
        Assert.Equal(0, host.Budget.Used);
    }

    [Theory]
    [InlineData(Existing, nameof(ExpireCondition.IfNoExpiry))]
    [InlineData(0, nameof(ExpireCondition.IfHasExpiry))]
    [InlineData(0, nameof(ExpireCondition.IfGreater))]
    [InlineData(Existing, nameof(ExpireCondition.IfGreater))]
    [InlineData(0, nameof(ExpireCondition.IfLessWithExpiry))]
    public void Expire_in_the_past_keeps_the_entry_when_the_condition_fails(long current, string condition)
    {
        using var host = new SingleGrain();
        host.Set("k", "v", current == 0 ? ExpirySpec.Never : new ExpirySpec(host.Now + current));

        Assert.False(host.Grain.Expire(SingleGrain.Bytes("k"), host.Now - 1, Enum.Parse<ExpireCondition>(condition)));

        Assert.Equal("v", host.Get("k"));
        Assert.Equal(current == 0 ? -1 : current, host.Ttl("k"));
    }

    [Fact]
    public void Expire_of_a_missing_key_returns_false()
    {
        using var host = new SingleGrain();

        Assert.False(host.Grain.Expire(SingleGrain.Bytes("missing"), host.Now + 1000, ExpireCondition.Always));
        Assert.False(host.Grain.Expire(SingleGrain.Bytes("missing"), host.Now - 1000, ExpireCondition.Always));
        Assert.Equal(0, host.Grain.Count);
    }

    [Fact]
    public void Expire_replaces_a_sliding_expiry_with_an_absolute_one()
    {
        using var host = new SingleGrain();
        host.Set("k", "v", new ExpirySpec(0, SlidingWindow: 1000));

        Assert.True(host.Grain.Expire(SingleGrain.Bytes("k"), host.Now + 3000, ExpireCondition.Always));

        var metadata = host.Metadata("k")!.Value;
        Assert.Equal(0, metadata.SlidingWindow);
        host.Advance(2000);
        Assert.Equal("v", host.Get("k", slide: true));
        Assert.Equal(1000, host.Ttl("k"));
        host.Advance(1000);
        Assert.Null(host.Get("k"));
    }

    [Fact]
    public void Persist_removes_an_absolute_expiry()
    {
        using var host = new SingleGrain();
        host.Set("k", "v", new ExpirySpec(host.Now + 1000));

        Assert.True(host.Grain.Persist(SingleGrain.Bytes("k")));

        Assert.Equal(-1, host.Ttl("k"));
        host.Time.Advance(TimeSpan.FromDays(1));
        Assert.Equal("v", host.Get("k"));
        Assert.False(host.Grain.Persist(SingleGrain.Bytes("k")));
    }

    [Fact]
    public void Persist_removes_a_sliding_expiry_so_reads_no_longer_add_one()
    {
        using var host = new SingleGrain();
        host.Set("k", "v", new ExpirySpec(host.Now + 5000, SlidingWindow: 1000));

        Assert.True(host.Grain.Persist(SingleGrain.Bytes("k")));
        Assert.Equal("v", host.Get("k", slide: true));

        var metadata = host.Metadata("k")!.Value;
        Assert.False(metadata.HasExpiry);
        Assert.Equal(0, metadata.SlidingWindow);
        Assert.Equal(0, metadata.AbsoluteDeadline);
        host.Time.Advance(TimeSpan.FromHours(1));
        Assert.Equal("v", host.Get("k"));
    }

    [Fact]
    public void Persist_of_an_entry_without_expiry_or_a_missing_key_returns_false()
    {
        using var host = new SingleGrain();
        host.Set("k", "v");

        Assert.False(host.Grain.Persist(SingleGrain.Bytes("k")));
        Assert.False(host.Grain.Persist(SingleGrain.Bytes("missing")));
        Assert.Equal(1, host.Grain.Count);
    }

    [Fact]
    public void Persist_of_an_expired_entry_returns_false()
    {
        using var host = new SingleGrain();
        host.Set("k", "v", new ExpirySpec(host.Now + 10));
        host.Advance(10);

        Assert.False(host.Grain.Persist(SingleGrain.Bytes("k")));
        Assert.Null(host.Get("k"));
    }

    [Fact]
    public void ReadAndChangeExpiry_with_null_keeps_an_absolute_expiry()
    {
        using var host = new SingleGrain();
        var deadline = host.Now + 1000;
        host.Set("k", "v", new ExpirySpec(deadline));
        host.Advance(400);
        var reader = new CapturingReader();

        Assert.True(host.Grain.ReadAndChangeExpiry(SingleGrain.Bytes("k"), null, ref reader));

        Assert.Equal("v", reader.Text);
        Assert.Equal(deadline, host.Metadata("k")!.Value.ExpiresAt);
    }

    [Fact]
    public void ReadAndChangeExpiry_with_null_renews_a_sliding_expiry()
    {
        using var host = new SingleGrain();
        host.Set("k", "v", new ExpirySpec(0, SlidingWindow: 1000));
        var reader = new CapturingReader();

        for (var i = 0; i < 5; i++)
        {
            host.Advance(800);
            Assert.True(host.Grain.ReadAndChangeExpiry(SingleGrain.Bytes("k"), null, ref reader));
        }

        Assert.Equal(1000, host.Ttl("k"));
        Assert.Equal(1000, host.Metadata("k")!.Value.SlidingWindow);
    }

    [Fact]
    public void ReadAndChangeExpiry_with_zero_persists_the_entry()
    {
        using var host = new SingleGrain();
        host.Set("k", "v", new ExpirySpec(host.Now + 5000, SlidingWindow: 1000));
        var reader = new CapturingReader();

        Assert.True(host.Grain.ReadAndChangeExpiry(SingleGrain.Bytes("k"), 0, ref reader));

        Assert.Equal("v", reader.Text);
        Assert.Equal(-1, host.Ttl("k"));
        host.Time.Advance(TimeSpan.FromHours(1));
        Assert.Equal("v", host.Get("k"));
    }

    [Fact]
    public void ReadAndChangeExpiry_with_a_future_time_sets_a_plain_absolute_expiry()
    {
        using var host = new SingleGrain();
        host.Set("k", "v", new ExpirySpec(0, SlidingWindow: 1000));
        var reader = new CapturingReader();

        Assert.True(host.Grain.ReadAndChangeExpiry(SingleGrain.Bytes("k"), host.Now + 3000, ref reader));

        Assert.Equal(3000, host.Ttl("k"));
        Assert.Equal(0, host.Metadata("k")!.Value.SlidingWindow);
        host.Advance(2999);
        Assert.Equal("v", host.Get("k", slide: true));
        host.Advance(1);
        Assert.Null(host.Get("k"));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(100_000)]
    public void ReadAndChangeExpiry_with_a_time_at_or_before_now_reads_then_deletes(long ago)
    {
        using var host = new SingleGrain();
        host.Set("k", "v");
        var reader = new CapturingReader();

        Assert.True(host.Grain.ReadAndChangeExpiry(SingleGrain.Bytes("k"), host.Now - ago, ref reader));

        Assert.Equal("v", reader.Text);
        Assert.Equal(0, host.Grain.Count);
        Assert.Equal(0, host.Budget.Used);
        Assert.Null(host.Get("k"));
    }

    [Fact]
    public void ReadAndChangeExpiry_of_a_missing_key_returns_false_without_reading()
    {
        using var host = new SingleGrain();
        var reader = new CapturingReader();

        Assert.False(host.Grain.ReadAndChangeExpiry(SingleGrain.Bytes("missing"), null, ref reader));
        Assert.False(host.Grain.ReadAndChangeExpiry(SingleGrain.Bytes("missing"), 0, ref reader));

        Assert.Equal(0, reader.Calls);
    }

    [Fact]
    public void Set_with_KeepExisting_keeps_the_absolute_expiry()
    {
        using var host = new SingleGrain();
        var deadline = host.Now + 1000;
        host.Set("k", "old", new ExpirySpec(deadline));
        host.Advance(500);

        Assert.Equal(SetStatus.Updated, host.Set("k", "new", ExpirySpec.Keep));

        Assert.Equal("new", host.Get("k"));
        Assert.Equal(deadline, host.Metadata("k")!.Value.ExpiresAt);
        host.Advance(500);
        Assert.Null(host.Get("k"));
    }

    [Fact]
    public void Set_with_KeepExisting_keeps_the_sliding_window_and_deadline()
    {
        using var host = new SingleGrain();
        var deadline = host.Now + 5000;
        host.Set("k", "old", new ExpirySpec(deadline, SlidingWindow: 1000));
        host.Advance(600);
        var before = host.Metadata("k")!.Value;

        Assert.Equal(SetStatus.Updated, host.Set("k", "new", ExpirySpec.Keep, flags: 4));

        var after = host.Metadata("k")!.Value;
        Assert.Equal(before.ExpiresAt, after.ExpiresAt);
        Assert.Equal(1000, after.SlidingWindow);
        Assert.Equal(deadline, after.AbsoluteDeadline);
        Assert.Equal(4u, after.Flags);

        host.Advance(300);
        Assert.Equal("new", host.Get("k", slide: true));
        Assert.Equal(1000, host.Ttl("k"));
    }

    [Fact]
    public void Set_without_KeepExisting_replaces_the_expiry()
    {
        using var host = new SingleGrain();
        host.Set("k", "old", new ExpirySpec(host.Now + 1000, SlidingWindow: 500));

        host.Set("k", "new");

        var metadata = host.Metadata("k")!.Value;
        Assert.False(metadata.HasExpiry);
        Assert.Equal(0, metadata.SlidingWindow);
        Assert.Equal(0, metadata.AbsoluteDeadline);
    }

    [Fact]
    public void Set_with_KeepExisting_on_a_missing_key_creates_an_entry_without_expiry()
    {
        using var host = new SingleGrain();

        Assert.Equal(SetStatus.Created, host.Set("k", "v", ExpirySpec.Keep));

        Assert.Equal(-1, host.Ttl("k"));
    }
}
