using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class CatalogMigrationTests
{
    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void A_detached_grain_is_invisible_until_attached(StoreKind kind)
    {
        using var pair = new MigrationPair(kind, kind);
        var slot = pair.MovingSlot;

        var grain = pair.Target.CreateDetached(slot);

        Assert.Null(pair.Target.Find(slot));
        Assert.Equal(slot, grain.Slot);
        pair.Target.Attach(slot, grain);
        Assert.Same(grain, pair.Target.Find(slot));
        Assert.Same(grain, pair.Target.GetOrCreate(slot));
        Assert.Same(grain, pair.Target.Detach(slot));
        Assert.Null(pair.Target.Find(slot));
        Assert.Null(pair.Target.Detach(slot));
        grain.Dispose();
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void Attaching_replaces_the_slots_grain_and_disposes_it_releasing_its_bytes(StoreKind kind)
    {
        using var pair = new MigrationPair(kind, kind);
        var slot = pair.MovingSlot;
        MigrationPair.Set(pair.Target, MigrationPair.KeyOf(1), new byte[400]);
        var old = pair.Turns.Hold(pair.Target.Find(slot)!);
        var replacement = pair.Turns.Hold(pair.Target.CreateDetached(slot));
        var none = default(NoReader);
        replacement.Set(MigrationPair.Bytes(MigrationPair.KeyOf(2)), new byte[10], new SetRequest(WriteCondition.Always, ExpirySpec.Never), ref none);

        pair.Target.Attach(slot, replacement);

        Assert.Same(replacement, pair.Target.GetOrCreate(slot));
        Assert.Equal(replacement.UsedBytes, pair.Target.Budget.Used);
        Assert.Null(MigrationPair.Peek(pair.Target, MigrationPair.KeyOf(1)));
        Assert.NotNull(MigrationPair.Peek(pair.Target, MigrationPair.KeyOf(2)));
        Assert.Throws<ObjectDisposedException>(() => old.Exists(MigrationPair.Bytes(MigrationPair.KeyOf(1))));

        pair.Target.Attach(slot, replacement);
        Assert.NotNull(MigrationPair.Peek(pair.Target, MigrationPair.KeyOf(2)));
    }

    [Fact]
    public void Only_a_grain_of_the_same_slot_and_catalog_can_be_attached()
    {
        using var pair = new MigrationPair(StoreKind.Native, StoreKind.Native);
        using var wrongSlot = pair.Target.CreateDetached(1);
        using var foreign = pair.Source.CreateDetached(2);

        Assert.Throws<ArgumentException>(() => pair.Target.Attach(2, wrongSlot));
        Assert.Throws<ArgumentException>(() => pair.Target.Attach(2, foreign));
        Assert.Throws<ArgumentOutOfRangeException>(() => pair.Target.CreateDetached(pair.Target.SlotCount));
        Assert.Null(pair.Target.Find(2));
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void A_disposed_grain_releases_its_bytes_once_and_refuses_calls_without_charging(StoreKind kind)
    {
        using var pair = new MigrationPair(kind, kind);
        for (var i = 0; i < 50; i++)
        {
            MigrationPair.Set(pair.Source, MigrationPair.KeyOf(i), new byte[i * 10]);
        }

        MigrationPair.Set(pair.Source, "elsewhere", new byte[100]);
        // A caller that still holds the grain, in its turn.
        var grain = pair.Turns.Hold(pair.Source.Detach(pair.MovingSlot)!);
        var others = pair.Source.Budget.Used - grain.UsedBytes;

        grain.Dispose();
        grain.Dispose();

        Assert.Equal(others, pair.Source.Budget.Used);
        var none = default(NoReader);
        Assert.Throws<ObjectDisposedException>(() => grain.Set(MigrationPair.Bytes("x"), new byte[10], new SetRequest(WriteCondition.Always, ExpirySpec.Never), ref none));
        Assert.Throws<ObjectDisposedException>(() => grain.Exists(MigrationPair.Bytes(MigrationPair.KeyOf(1))));
        Assert.Throws<ObjectDisposedException>(() => grain.Install(Array.Empty<byte>()));
        Assert.Equal(0, grain.Clear());
        Assert.Equal(0, grain.RemoveAllExpired());
        Assert.True(grain.TryEvictOne(5, out var freed));
        Assert.Equal(0, freed);
        Assert.Equal(others, pair.Source.Budget.Used);
    }
}
