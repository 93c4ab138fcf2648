using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class MigrationBudgetTests
{
    [Theory]
    [InlineData(StoreKind.Native, StoreKind.Native)]
    [InlineData(StoreKind.Managed, StoreKind.Managed)]
    [InlineData(StoreKind.Native, StoreKind.Managed)]
    public void Detaching_and_disposing_frees_exactly_the_grains_bytes_and_installing_charges_them(StoreKind source, StoreKind target)
    {
        using var pair = new MigrationPair(source, target);
        long expectedTargetBytes = 0;
        for (var i = 0; i < 200; i++)
        {
            var value = new byte[i * 13 % 900];
            MigrationPair.Set(pair.Source, MigrationPair.KeyOf(i), value, flags: (uint)i);
            expectedTargetBytes += pair.Target.EstimateSize(MigrationPair.KeyOf(i).Length, value.Length);
        }

        MigrationPair.Set(pair.Source, "stays:1", new byte[500]);
        MigrationPair.Set(pair.Target, "already-there", new byte[300]);
        var movingBytes = pair.Source.Find(pair.MovingSlot)!.UsedBytes;
        var sourceBefore = pair.Source.Budget.Used;
        var targetBefore = pair.Target.Budget.Used;
        Assert.True(movingBytes > 0 && sourceBefore > movingBytes);

        var (_, installed) = pair.Move(pair.MovingSlot, 4096);

        Assert.Equal(200, installed);
        Assert.Equal(sourceBefore - movingBytes, pair.Source.Budget.Used);
        Assert.Equal(pair.Source.Find(pair.Source.ShardMap.SlotOf("stays:1"))!.UsedBytes, pair.Source.Budget.Used);
        Assert.Equal(targetBefore + expectedTargetBytes, pair.Target.Budget.Used);
        Assert.Equal(expectedTargetBytes, pair.Target.Find(pair.MovingSlot)!.UsedBytes);

        pair.Target.Detach(pair.MovingSlot)!.Dispose();
        Assert.Equal(targetBefore, pair.Target.Budget.Used);
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void Installing_over_an_existing_key_overwrites_it_and_charges_only_the_growth(StoreKind kind)
    {
        using var pair = new MigrationPair(kind, kind);
        var key = MigrationPair.KeyOf(7);
        MigrationPair.Set(pair.Source, key, new byte[1000], new ExpirySpec(pair.Now + 5000), flags: 9);
        var chunk = Assert.Single(MigrationPair.WriteAllChunks(pair.Source.Find(pair.MovingSlot)!, 1 << 20));
        MigrationPair.Set(pair.Target, key, new byte[10]);
        var before = pair.Target.Budget.Used;

        var installed = pair.Target.GetOrCreate(pair.MovingSlot).Install(chunk);

        Assert.Equal(1, installed);
        using var sizer = StoreKinds.Factory(kind).Create();
        Assert.Equal(before + sizer.SizeOf(key.Length, 1000) - sizer.SizeOf(key.Length, 10), pair.Target.Budget.Used);
        var arrived = MigrationPair.Peek(pair.Target, key)!.Value;
        Assert.Equal(1000, arrived.Value.Length);
        Assert.Equal(9u, arrived.Metadata.Flags);
        Assert.Equal(pair.Now + 5000, arrived.Metadata.ExpiresAt);

        // Installing the same chunk again (a resent chunk) changes nothing.
        Assert.Equal(1, pair.Target.GetOrCreate(pair.MovingSlot).Install(chunk));
        Assert.Equal(before + sizer.SizeOf(key.Length, 1000) - sizer.SizeOf(key.Length, 10), pair.Target.Budget.Used);
        Assert.Equal(1, pair.Target.GetOrCreate(pair.MovingSlot).Count);
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void A_full_budget_evicts_other_entries_to_make_room_as_a_write_does(StoreKind kind)
    {
        var perEntry = new EntryStore().SizeOf(20, 1000) + 64;
        var limit = 100 * perEntry;
        using var pair = new MigrationPair(kind, kind, targetBudget: limit);
        for (var i = 0; i < 60; i++)
        {
            MigrationPair.Set(pair.Source, MigrationPair.KeyOf(i), new byte[1000]);
        }

        var filled = 0;
        while (pair.Target.Budget.Available >= perEntry)
        {
            Assert.Equal(Cubby.Grains.SetStatus.Created, MigrationPair.Set(pair.Target, $"resident:{filled++}", new byte[1000]));
        }

        Assert.True(filled > 60);
        var (_, installed) = pair.Move(pair.MovingSlot, 8192);

        Assert.Equal(60, installed);
        Assert.Equal(60, pair.Target.Find(pair.MovingSlot)!.Count);
        Assert.InRange(pair.Target.Budget.Used, 0, limit);
        var evicted = 0L;
        for (var slot = 0; slot < pair.Target.SlotCount; slot++)
        {
            evicted += pair.Target.Find(slot)?.EvictedCount ?? 0;
        }

        Assert.True(evicted >= 50, $"evicted {evicted}");
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void Entries_that_cannot_fit_even_after_eviction_are_dropped_and_the_budget_holds(StoreKind kind)
    {
        var limit = 10 * new EntryStore().SizeOf(20, 1000);
        using var pair = new MigrationPair(kind, kind, targetBudget: limit);
        for (var i = 0; i < 30; i++)
        {
            MigrationPair.Set(pair.Source, MigrationPair.KeyOf(i), new byte[1000]);
        }

        var (chunks, installed) = pair.Move(pair.MovingSlot, 8192);

        Assert.Equal(30, chunks.Sum(chunk => MigrationPair.KeysIn(chunk).Count));
        Assert.InRange(installed, 1, 29);
        Assert.Equal(installed, pair.Target.Find(pair.MovingSlot)!.Count);
        Assert.Equal(pair.Target.Find(pair.MovingSlot)!.UsedBytes, pair.Target.Budget.Used);
        Assert.InRange(pair.Target.Budget.Used, 0, limit);
    }
}
