using System.Net;
using System.Text;
using Cubby.Client;
using Cubby.Client.NearCaching;
using Cubby.Sharding;

namespace Cubby.Tests.Client;

/// <summary>
/// The near cache's rules on its own, on fake time: what a fill keeps, what an invalidation drops (a key, a shard,
/// everything a silo tracked), the race between a read's reply and an invalidation, and the lease that stops serving
/// when a silo's pushes may have been lost.
/// </summary>
public sealed class NearCacheStoreTests : IDisposable
{
    private static readonly SiloAddress Gateway = SiloAddress.New(new IPEndPoint(IPAddress.Loopback, 30000), 0);
    private static readonly SiloAddress OtherGateway = SiloAddress.New(new IPEndPoint(IPAddress.Loopback, 30001), 0);

    private readonly FakeTimeProvider _time = new();
    private readonly NearCacheMetrics _metrics = new(null);
    private readonly NearCache _cache;

    public NearCacheStoreTests() =>
        _cache = new NearCache(new NearCacheOptions { Enabled = true, MaxStaleness = TimeSpan.FromSeconds(1) }, 16, _time, _metrics, static link => link);

    [Fact]
    public void A_fill_is_served_while_its_lease_runs_and_not_after()
    {
        var link = LeasedLink(Gateway);
        Fill("k", slot: 1, link, "v1");

        Assert.True(_cache.TryGet("k", out var kept));
        Assert.Equal("v1", Encoding.UTF8.GetString(kept.Value));

        _time.Advance(TimeSpan.FromMilliseconds(1001));
        Assert.False(_cache.TryGet("k", out _));

        // A renewal that finds nothing missing serves it again: every change the silo queued reached the client.
        link.Renewed(new NearCacheLease(7, 0), _cache.Clock.Now, _cache.MaxStaleness);
        Assert.True(_cache.TryGet("k", out _));
        Assert.Equal(2, _metrics.Hits);
        Assert.Equal(1, _metrics.Misses);
    }

    [Fact]
    public void A_lease_the_silo_cuts_short_ends_when_the_silo_says()
    {
        // The silo has 300 ms left of its own right to serve: the lease ends there, not a MaxStaleness after the send.
        var link = _cache.LinkTo(Gateway);
        link.Renewed(new NearCacheLease(7, 0, TimeSpan.FromMilliseconds(300)), _cache.Clock.Now, _cache.MaxStaleness);
        Fill("k", slot: 1, link, "v1");

        _time.Advance(TimeSpan.FromMilliseconds(299));
        Assert.True(_cache.TryGet("k", out _));
        _time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.False(_cache.TryGet("k", out _));
    }

    [Fact]
    public async Task A_renewal_that_finds_an_invalidation_missing_does_not_extend_the_lease()
    {
        var link = LeasedLink(Gateway);
        Fill("k", slot: 1, link, "v1");
        _time.Advance(TimeSpan.FromMilliseconds(900));

        // The silo had queued three invalidations that have not arrived: the old lease runs out, no new one starts.
        link.Renewed(new NearCacheLease(7, 3), _cache.Clock.Now, _cache.MaxStaleness);
        Assert.True(_cache.TryGet("k", out _));
        _time.Advance(TimeSpan.FromMilliseconds(101));
        Assert.False(_cache.TryGet("k", out _));

        // They arrive, the key among them; the next renewal starts a lease, and the key is gone.
        await link.Invalidated(3, [new KeyInvalidation(1, [Encoding.UTF8.GetBytes("k")])]);
        link.Renewed(new NearCacheLease(7, 3), _cache.Clock.Now, _cache.MaxStaleness);
        Fill("other", slot: 1, link, "o");
        Assert.True(_cache.TryGet("other", out _));
        Assert.False(_cache.TryGet("k", out _));
    }

    [Fact]
    public void A_silo_that_forgot_the_client_ends_what_it_tracked()
    {
        var link = LeasedLink(Gateway);
        Fill("k", slot: 1, link, "v1");

        link.Renewed(new NearCacheLease(8, 0), _cache.Clock.Now, _cache.MaxStaleness);

        Assert.False(_cache.TryGet("k", out _));
    }

    [Fact]
    public async Task An_invalidation_drops_its_key_its_shard_or_everything_its_silo_tracked_and_nothing_else()
    {
        var link = LeasedLink(Gateway);
        var other = LeasedLink(OtherGateway);
        Fill("a", slot: 1, link, "a");
        Fill("b", slot: 1, link, "b");
        Fill("c", slot: 2, link, "c");
        Fill("d", slot: 3, other, "d");

        await link.Invalidated(1, [new KeyInvalidation(1, [Encoding.UTF8.GetBytes("a")])]);
        Assert.False(_cache.TryGet("a", out _));
        Assert.True(_cache.TryGet("b", out _));

        await link.Invalidated(2, [new KeyInvalidation(1, null)]);
        Assert.False(_cache.TryGet("b", out _));
        Assert.True(_cache.TryGet("c", out _));

        await link.Invalidated(3, [KeyInvalidation.Everything]);
        Assert.False(_cache.TryGet("c", out _));
        Assert.True(_cache.TryGet("d", out _));
        Assert.Equal(3, _metrics.Invalidations);
    }

    [Fact]
    public async Task An_invalidation_that_overtakes_the_reply_of_a_read_keeps_the_reply_out()
    {
        var link = LeasedLink(Gateway);
        var ticket = _cache.BeginFill("k", 1, link);

        await link.Invalidated(1, [new KeyInvalidation(1, [Encoding.UTF8.GetBytes("k")])]);

        Assert.Null(_cache.CompleteFill("k", 1, ticket, Read("old"), Encoding.UTF8.GetBytes("old")));
        Assert.False(_cache.TryGet("k", out _));

        // So do a shard's invalidation and the end of the link's epoch.
        ticket = _cache.BeginFill("k", 1, link);
        await link.Invalidated(2, [new KeyInvalidation(1, null)]);
        Assert.Null(_cache.CompleteFill("k", 1, ticket, Read("old"), Encoding.UTF8.GetBytes("old")));
        ticket = _cache.BeginFill("k", 1, link);
        link.EndEpoch();
        Assert.Null(_cache.CompleteFill("k", 1, ticket, Read("old"), Encoding.UTF8.GetBytes("old")));
    }

    [Fact]
    public void A_write_by_this_client_drops_the_key_and_spoils_its_reads_under_way()
    {
        var link = LeasedLink(Gateway);
        Fill("k", slot: 1, link, "v1");
        var ticket = _cache.BeginFill("k", 1, link);

        _cache.Drop("k");

        Assert.False(_cache.TryGet("k", out _));
        Assert.Null(_cache.CompleteFill("k", 1, ticket, Read("v1"), Encoding.UTF8.GetBytes("v1")));
    }

    [Fact]
    public async Task This_clients_own_write_takes_its_place_among_the_changes_its_silo_sends()
    {
        var link = LeasedLink(Gateway);
        Fill("k", slot: 1, link, "v0");
        await link.Invalidated(2, [new KeyInvalidation(1, [Encoding.UTF8.GetBytes("other")]), Update("k", "v1")]);
        Assert.Equal("v1", Value("k"));

        // Answered after the second change: its write replaces what that change left.
        link.KeepOwnWrite("k", 1, Read("own"), new NearCachePosition(2, 1));
        Assert.Equal("own", Value("k"));

        // Another client's change sent after it lands on top of it.
        await link.Invalidated(3, [Update("k", "v3")]);
        Assert.Equal("v3", Value("k"));

        // An answer that arrives late, for a write made before that change, leaves the newer value and spoils reads under way.
        var ticket = _cache.BeginFill("k", 1, link);
        link.KeepOwnWrite("k", 1, Read("late"), new NearCachePosition(2, 2));
        Assert.Equal("v3", Value("k"));
        Assert.Null(_cache.CompleteFill("k", 1, ticket, Read("v3"), Encoding.UTF8.GetBytes("v3")));

        // A read sent after change 3 holds it or a later one: an own write made before change 3 does not replace it.
        _cache.Drop("k");
        Fill("k", slot: 1, link, "read");
        link.KeepOwnWrite("k", 1, Read("older"), new NearCachePosition(2, 3));
        Assert.Equal("read", Value("k"));
        link.KeepOwnWrite("k", 1, Read("newer"), new NearCachePosition(3, 4));
        Assert.Equal("newer", Value("k"));

        // Nor is a key it does not hold through this link filled by its own write.
        link.KeepOwnWrite("absent", 1, Read("own"), new NearCachePosition(3, 5));
        Assert.False(_cache.TryGet("absent", out _));
    }

    [Fact]
    public async Task A_silo_started_again_at_the_same_gateway_numbers_anew_and_its_changes_replace_what_was_read_from_it()
    {
        var link = LeasedLink(Gateway);
        await link.Invalidated(500, [new KeyInvalidation(1, [Encoding.UTF8.GetBytes("other")])]);

        // The new silo's first renewal: another incarnation, nothing sent yet. What it has sent is all there is.
        link.Renewed(new NearCacheLease(8, 0), _cache.Clock.Now, _cache.MaxStaleness);
        Assert.Equal(0, link.Received);
        Fill("k", slot: 1, link, "v1");
        await link.Invalidated(1, [Update("k", "v2")]);
        Assert.Equal("v2", Value("k"));

        // And its lease is held back until it has what the new silo sent.
        link.Renewed(new NearCacheLease(8, 3), _cache.Clock.Now, _cache.MaxStaleness);
        _time.Advance(TimeSpan.FromMilliseconds(1001));
        link.Renewed(new NearCacheLease(8, 3), _cache.Clock.Now, _cache.MaxStaleness);
        Assert.Null(Value("k"));
    }

    [Fact]
    public void An_entry_expires_here_when_it_does_on_the_silo_counted_from_when_its_read_was_sent()
    {
        var link = LeasedLink(Gateway);
        var ticket = _cache.BeginFill("k", 1, link);
        _time.Advance(TimeSpan.FromMilliseconds(200));
        Assert.NotNull(_cache.CompleteFill("k", 1, ticket, Read("v", timeToLive: 500), Encoding.UTF8.GetBytes("v")));
        link.Renewed(new NearCacheLease(7, 0), _cache.Clock.Now, _cache.MaxStaleness);

        _time.Advance(TimeSpan.FromMilliseconds(299));
        Assert.True(_cache.TryGet("k", out _));
        _time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.False(_cache.TryGet("k", out _));
    }

    [Fact]
    public async Task The_bound_in_bytes_keeps_the_cache_within_it()
    {
        using var small = new NearCache(new NearCacheOptions { Enabled = true, MaxBytes = 64 * 1024 }, 16, _time, new NearCacheMetrics(null), static l => l);
        var smallLink = small.LinkTo(Gateway);
        smallLink.Renewed(new NearCacheLease(7, 0), small.Clock.Now, small.MaxStaleness);
        for (var i = 0; i < 200; i++)
        {
            var ticket = small.BeginFill($"k{i}", 1, smallLink);
            small.CompleteFill($"k{i}", 1, ticket, Read("x"), new byte[1024]);
        }

        // The policy evicts in the background, as MemoryCache compacts.
        await Poll.UntilAsync(() => small.Bytes is > 0 and <= 64 * 1024 && small.Count is > 0 and <= 64, TestDeadlines.Call, "the near cache to shrink to its bound");
    }

    public void Dispose()
    {
        _cache.Dispose();
        _metrics.Dispose();
    }

    private TrackerLink LeasedLink(SiloAddress gateway)
    {
        var link = _cache.LinkTo(gateway);
        link.Renewed(new NearCacheLease(7, 0), _cache.Clock.Now, _cache.MaxStaleness);
        return link;
    }

    private void Fill(string key, int slot, TrackerLink link, string value)
    {
        var ticket = _cache.BeginFill(key, slot, link);
        Assert.NotNull(_cache.CompleteFill(key, slot, ticket, Read(value), Encoding.UTF8.GetBytes(value)));
    }

    private static KeyInvalidation Update(string key, string value) => new(1, [Encoding.UTF8.GetBytes(key)], Read(value));

    private string? Value(string key) => _cache.TryGet(key, out var kept) ? Encoding.UTF8.GetString(kept.Value) : null;

    private static ShardEntry Read(string value, long timeToLive = -1) => new(Encoding.UTF8.GetBytes(value), CacheEntryFlags.None, timeToLive);
}
