using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class ExpirySemanticsTests
{
    [Fact]
    public void Absolute_expiry_is_readable_until_the_millisecond_before_and_gone_at_the_deadline()
    {
        using var host = new SingleGrain();
        var deadline = host.Now + 1000;
        host.Set("k", "v", new ExpirySpec(deadline));

        host.Advance(999);
        Assert.Equal("v", host.Get("k"));
        Assert.True(host.Grain.Exists(SingleGrain.Bytes("k")));
        Assert.Equal(1, host.Ttl("k"));

        host.Advance(1);
        Assert.Null(host.Get("k"));
        Assert.False(host.Grain.Exists(SingleGrain.Bytes("k")));
        Assert.Equal(-2, host.Ttl("k"));
    }

    [Fact]
    public void Relative_expiry_counts_from_the_time_of_the_write()
    {
        using var host = new SingleGrain();
        host.Advance(12_345);
        host.Set("k", "v", new ExpirySpec(host.Now + 2000));
        Assert.Equal(2000, host.Ttl("k"));

        host.Advance(1999);
        Assert.Equal("v", host.Get("k"));

        host.Advance(1);
        Assert.Null(host.Get("k"));
    }

    [Fact]
    public void An_entry_without_expiry_lives_forever()
    {
        using var host = new SingleGrain();
        host.Set("k", "v");

        host.Time.Advance(TimeSpan.FromDays(3650));

        Assert.Equal("v", host.Get("k"));
        Assert.Equal(-1, host.Ttl("k"));
    }

    [Fact]
    public void Sliding_expiry_is_renewed_by_Read_with_slide()
    {
        using var host = new SingleGrain();
        host.Set("k", "v", new ExpirySpec(0, SlidingWindow: 1000));

        for (var i = 0; i < 10; i++)
        {
            host.Advance(900);
            Assert.Equal("v", host.Get("k", slide: true));
            Assert.Equal(1000, host.Ttl("k"));
        }

        host.Advance(999);
        Assert.Equal("v", host.Get("k", slide: false));
        host.Advance(1);
        Assert.Null(host.Get("k"));
    }

    [Fact]
    public void Sliding_expiry_is_renewed_by_Refresh()
    {
        using var host = new SingleGrain();
        host.Set("k", "v", new ExpirySpec(0, SlidingWindow: 1000));

        for (var i = 0; i < 10; i++)
        {
            host.Advance(900);
            Assert.True(host.Grain.Refresh(SingleGrain.Bytes("k")));
            Assert.Equal(1000, host.Ttl("k"));
        }

        host.Advance(1000);
        Assert.False(host.Grain.Refresh(SingleGrain.Bytes("k")));
        Assert.Null(host.Get("k"));
    }

    [Fact]
    public void Sliding_expiry_is_not_renewed_by_Read_without_slide_Exists_or_TryGetMetadata()
    {
        using var host = new SingleGrain();
        var key = SingleGrain.Bytes("k");
        host.Set("k", "v", new ExpirySpec(0, SlidingWindow: 1000));

        host.Advance(300);
        Assert.Equal("v", host.Get("k", slide: false));
        host.Advance(300);
        Assert.True(host.Grain.Exists(key));
        host.Advance(300);
        Assert.True(host.Grain.TryGetMetadata(key, out var metadata, out var now));
        Assert.Equal(100, metadata.TimeToLive(now));

        host.Advance(99);
        Assert.True(host.Grain.Exists(key));
        host.Advance(1);
        Assert.False(host.Grain.Exists(key));
        Assert.Null(host.Get("k"));
    }

    [Fact]
    public void Sliding_expiry_never_outlives_its_absolute_deadline_however_often_it_is_read()
    {
        using var host = new SingleGrain();
        var deadline = host.Now + 2500;
        host.Set("k", "v", new ExpirySpec(deadline, SlidingWindow: 1000));
        Assert.Equal(1000, host.Ttl("k"));

        for (var elapsed = 100; elapsed < 2500; elapsed += 100)
        {
            host.Advance(100);
            Assert.Equal("v", host.Get("k", slide: true));
            Assert.True(host.Grain.Refresh(SingleGrain.Bytes("k")));
            var metadata = host.Metadata("k")!.Value;
            Assert.Equal(Math.Min(host.Now + 1000, deadline), metadata.ExpiresAt);
            Assert.Equal(deadline, metadata.AbsoluteDeadline);
        }

        Assert.Equal(2400, host.Now - host.Time.Start.ToUnixTimeMilliseconds());
        host.Advance(99);
        Assert.Equal("v", host.Get("k", slide: true));
        host.Advance(1);
        Assert.Null(host.Get("k", slide: true));
    }

    [Fact]
    public void A_sliding_window_longer_than_the_time_to_the_deadline_starts_capped()
    {
        using var host = new SingleGrain();
        var deadline = host.Now + 300;
        host.Set("k", "v", new ExpirySpec(deadline, SlidingWindow: 10_000));

        Assert.Equal(300, host.Ttl("k"));
        host.Advance(300);
        Assert.Null(host.Get("k"));
    }

    [Fact]
    public void Refresh_of_a_missing_key_returns_false_and_creates_nothing()
    {
        using var host = new SingleGrain();

        Assert.False(host.Grain.Refresh(SingleGrain.Bytes("missing")));
        Assert.Equal(0, host.Grain.Count);
    }

    [Fact]
    public void Refresh_of_an_entry_without_sliding_expiry_keeps_its_expiry()
    {
        using var host = new SingleGrain();
        var deadline = host.Now + 1000;
        host.Set("absolute", "v", new ExpirySpec(deadline));
        host.Set("forever", "v");

        host.Advance(500);
        Assert.True(host.Grain.Refresh(SingleGrain.Bytes("absolute")));
        Assert.True(host.Grain.Refresh(SingleGrain.Bytes("forever")));

        Assert.Equal(deadline, host.Metadata("absolute")!.Value.ExpiresAt);
        Assert.Equal(-1, host.Ttl("forever"));
    }

    [Fact]
    public void TryGetMetadata_reports_the_time_to_live_and_the_current_time()
    {
        using var host = new SingleGrain();
        var deadline = host.Now + 5000;
        host.Set("k", "v", new ExpirySpec(deadline), flags: 9);
        host.Advance(1234);

        Assert.True(host.Grain.TryGetMetadata(SingleGrain.Bytes("k"), out var metadata, out var now));

        Assert.Equal(host.Now, now);
        Assert.Equal(deadline, metadata.ExpiresAt);
        Assert.True(metadata.HasExpiry);
        Assert.Equal(5000 - 1234, metadata.TimeToLive(now));
        Assert.Equal(9u, metadata.Flags);
        Assert.False(host.Grain.TryGetMetadata(SingleGrain.Bytes("other"), out _, out _));
    }

    [Fact]
    public void Reads_see_the_renewed_expiry_of_a_sliding_entry()
    {
        using var host = new SingleGrain();
        host.Set("k", "v", new ExpirySpec(0, SlidingWindow: 1000));
        host.Advance(600);
        var reader = new CapturingReader();

        Assert.True(host.Grain.Read(SingleGrain.Bytes("k"), slide: true, ref reader));

        Assert.Equal(host.Now, reader.Now);
        Assert.Equal(host.Now + 1000, reader.Metadata.ExpiresAt);
        Assert.Equal(1000, reader.Metadata.SlidingWindow);
    }
}
