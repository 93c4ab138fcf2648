using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class LazyExpiryTests
{
    public static TheoryData<string> Accesses =>
    [
        "Read", "ReadWithoutSlide", "Refresh", "Exists", "TryGetMetadata", "Remove", "Expire", "Persist",
        "ReadAndChangeExpiry", "IncrementBy", "Append", "SetIfPresent",
    ];

    [Theory]
    [MemberData(nameof(Accesses))]
    public void An_expired_entry_is_removed_by_the_first_access_and_counted(string access)
    {
        using var host = new SingleGrain();
        host.Set("live", "stays");
        var liveBytes = host.Budget.Used;
        host.Set("k", "12", new ExpirySpec(host.Now + 100));
        Assert.True(host.Budget.Used > liveBytes);
        host.Advance(100);

        Assert.Equal(2, host.Grain.Count);
        Assert.Equal(0, host.Grain.ExpiredCount);

        var reader = new CapturingReader();

        Assert.False(Access(host, access, reader));
        Assert.Equal(0, reader.Calls);
        Assert.Equal(1, host.Grain.ExpiredCount);
        Assert.Equal(0, host.Grain.EvictedCount);
        Assert.Equal(1, host.Grain.Count);
        Assert.Equal(liveBytes, host.Budget.Used);
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
        Assert.Equal("stays", host.Get("live"));
    }

    [Fact]
    public void A_write_to_an_expired_key_creates_a_fresh_entry()
    {
        using var host = new SingleGrain();
        host.Set("k", "old", new ExpirySpec(host.Now + 100), flags: 3);
        host.Advance(100);
        var previous = new CapturingReader();

        var status = host.Grain.Set(SingleGrain.Bytes("k"), SingleGrain.Bytes("new"), new SetRequest(WriteCondition.IfAbsent, ExpirySpec.Never), ref previous);

        Assert.Equal(SetStatus.Created, status);
        Assert.Equal(0, previous.Calls);
        Assert.Equal(1, host.Grain.ExpiredCount);
        Assert.Equal("new", host.Get("k"));
        Assert.Equal(-1, host.Ttl("k"));
        Assert.Equal(0u, host.Metadata("k")!.Value.Flags);
    }

    [Fact]
    public void IncrementBy_on_an_expired_key_starts_from_zero_without_expiry()
    {
        using var host = new SingleGrain();
        host.Set("n", "41", new ExpirySpec(host.Now + 100));
        host.Advance(100);

        Assert.Equal(UpdateStatus.Ok, host.Grain.IncrementBy(SingleGrain.Bytes("n"), 1, out var result));

        Assert.Equal(1, result);
        Assert.Equal(-1, host.Ttl("n"));
    }

    [Fact]
    public void An_entry_not_yet_accessed_stays_held_after_it_expires()
    {
        using var host = new SingleGrain();
        host.Set("k", "v", new ExpirySpec(host.Now + 100));
        var used = host.Budget.Used;

        host.Time.Advance(TimeSpan.FromHours(1));

        Assert.Equal(1, host.Grain.Count);
        Assert.Equal(used, host.Budget.Used);
        Assert.Equal(0, host.Grain.ExpiredCount);
    }

    private static bool Access(SingleGrain host, string access, CapturingReader reader)
    {
        var key = SingleGrain.Bytes("k");
        var none = default(NoReader);
        return access switch
        {
            "Read" => host.Grain.Read(key, slide: true, ref reader),
            "ReadWithoutSlide" => host.Grain.Read(key, slide: false, ref reader),
            "Refresh" => host.Grain.Refresh(key),
            "Exists" => host.Grain.Exists(key),
            "TryGetMetadata" => host.Grain.TryGetMetadata(key, out _, out _),
            "Remove" => host.Grain.Remove(key),
            "Expire" => host.Grain.Expire(key, host.Now + 1000, ExpireCondition.Always),
            "Persist" => host.Grain.Persist(key),
            "ReadAndChangeExpiry" => host.Grain.ReadAndChangeExpiry(key, null, ref reader),
            "IncrementBy" => IncrementFoundOld(host, key),
            "Append" => AppendFoundOld(host, key),
            "SetIfPresent" => host.Grain.Set(key, SingleGrain.Bytes("x"), new SetRequest(WriteCondition.IfPresent, ExpirySpec.Never), ref none) != SetStatus.NotStored,
            _ => throw new ArgumentOutOfRangeException(nameof(access), access, null),
        };
    }

    // These create the key afresh, so the old entry counts as found only if its value shows through.
    private static bool IncrementFoundOld(SingleGrain host, byte[] key)
    {
        Assert.Equal(UpdateStatus.Ok, host.Grain.IncrementBy(key, 1, out var result));
        Assert.True(host.Grain.Remove(key));
        return result != 1;
    }

    private static bool AppendFoundOld(SingleGrain host, byte[] key)
    {
        Assert.Equal(UpdateStatus.Ok, host.Grain.Append(key, SingleGrain.Bytes("x"), out var length));
        Assert.True(host.Grain.Remove(key));
        return length != 1;
    }
}
