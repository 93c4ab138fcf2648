using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

/// <summary>A shard's WATCH stamps: every way a key can change breaks its watch; reads and other keys do not.</summary>
public sealed class KeyWatchTests
{
    public static TheoryData<string> Changes =>
    [
        "Set", "SetIfPresent", "Remove", "ReadAndRemove", "Expire", "ExpireInThePast", "Persist", "GetExWithExpiry",
        "IncrementBy", "Append", "Clear", "Evicted", "ExpiredUnread", "ExpiredAndSwept",
    ];

    public static TheoryData<string> NonChanges =>
    [
        "Read", "ReadWithoutSlide", "Exists", "TryGetMetadata", "SetIfAbsent", "OtherKeyWritten", "PersistWithoutExpiry",
    ];

    [Theory]
    [MemberData(nameof(Changes))]
    public void A_change_of_the_watched_key_breaks_its_watch(string change)
    {
        using var host = new SingleGrain();
        host.Set("k", "12", new ExpirySpec(host.Now + 60_000));
        var watch = host.Grain.Watch(SingleGrain.Bytes("k"));
        Assert.True(watch.Existed);

        Apply(host, change);

        Assert.False(host.Grain.IsUnchanged(SingleGrain.Bytes("k"), watch));
    }

    [Theory]
    [MemberData(nameof(NonChanges))]
    public void Reads_and_writes_elsewhere_leave_the_watch_intact(string access)
    {
        using var host = new SingleGrain();
        host.Set("k", "12");
        var watch = host.Grain.Watch(SingleGrain.Bytes("k"));

        Apply(host, access);

        Assert.True(host.Grain.IsUnchanged(SingleGrain.Bytes("k"), watch));
    }

    [Fact]
    public void A_watched_absent_key_changes_when_created_and_not_before()
    {
        using var host = new SingleGrain();
        var watch = host.Grain.Watch(SingleGrain.Bytes("absent"));
        Assert.False(watch.Existed);
        Assert.True(host.Grain.IsUnchanged(SingleGrain.Bytes("absent"), watch));

        host.Set("absent", "now");

        Assert.False(host.Grain.IsUnchanged(SingleGrain.Bytes("absent"), watch));
    }

    [Fact]
    public void Watchers_are_counted_and_the_key_is_forgotten_after_the_last_unwatch()
    {
        using var host = new SingleGrain();
        var key = SingleGrain.Bytes("k");
        var first = host.Grain.Watch(key);
        var second = host.Grain.Watch(key);
        Assert.Equal(first, second);
        Assert.Equal(1, host.Grain.WatchedKeys);

        host.Grain.Unwatch(key);
        Assert.Equal(1, host.Grain.WatchedKeys);
        Assert.True(host.Grain.IsUnchanged(key, second));

        host.Grain.Unwatch(key);
        Assert.Equal(0, host.Grain.WatchedKeys);

        // Forgotten (or on a shard that moved and lost its table): counted as changed, never as unchanged.
        Assert.False(host.Grain.IsUnchanged(key, second));
    }

    private static void Apply(SingleGrain host, string change)
    {
        var key = SingleGrain.Bytes("k");
        var reader = new CapturingReader();
        switch (change)
        {
            case "Set": host.Set("k", "13"); break;
            case "SetIfPresent": host.Set("k", "12", condition: WriteCondition.IfPresent); break;
            case "SetIfAbsent": Assert.Equal(SetStatus.NotStored, host.Set("k", "13", condition: WriteCondition.IfAbsent)); break;
            case "Remove": Assert.True(host.Grain.Remove(key)); break;
            case "ReadAndRemove": Assert.True(host.Grain.ReadAndRemove(key, ref reader)); break;
            case "Expire": Assert.True(host.Grain.Expire(key, host.Now + 120_000, ExpireCondition.Always)); break;
            case "ExpireInThePast": Assert.True(host.Grain.Expire(key, host.Now - 1, ExpireCondition.Always)); break;
            case "Persist": Assert.True(host.Grain.Persist(key)); break;
            case "PersistWithoutExpiry": Assert.False(host.Grain.Persist(key)); break;
            case "GetExWithExpiry": Assert.True(host.Grain.ReadAndChangeExpiry(key, host.Now + 5_000, ref reader)); break;
            case "IncrementBy": Assert.Equal(UpdateStatus.Ok, host.Grain.IncrementBy(key, 1, out _)); break;
            case "Append": Assert.Equal(UpdateStatus.Ok, host.Grain.Append(key, SingleGrain.Bytes("x"), out _)); break;
            case "Clear": host.Grain.Clear(); break;
            case "Evicted": Assert.True(host.Grain.TryEvictOne(samples: 5, out _)); break;
            case "ExpiredUnread": host.Advance(60_000); break;
            case "ExpiredAndSwept": host.Advance(60_000); Assert.Equal(1, host.Grain.RemoveAllExpired()); break;
            case "Read": Assert.True(host.Grain.Read(key, slide: true, ref reader)); break;
            case "ReadWithoutSlide": Assert.True(host.Grain.Read(key, slide: false, ref reader)); break;
            case "Exists": Assert.True(host.Grain.Exists(key)); break;
            case "TryGetMetadata": Assert.True(host.Grain.TryGetMetadata(key, out _, out _)); break;
            case "OtherKeyWritten": host.Set("other", "1"); Assert.True(host.Grain.Remove(SingleGrain.Bytes("other"))); break;
            default: throw new ArgumentOutOfRangeException(nameof(change), change, null);
        }
    }
}
