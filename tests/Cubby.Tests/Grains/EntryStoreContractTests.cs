using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

/// <summary>What an <see cref="EntryStore"/> must do; run on each kind of <see cref="EntryMemory"/>.</summary>
public abstract class EntryStoreContractTests
{
    private protected abstract EntryMemory CreateMemory();

    private EntryStore CreateStore() => CreateRecyclingStore(0);

    /// <summary>A store that keeps up to <paramref name="keptForReuse"/> bytes of freed blocks for its next entries, as a silo's stores do.</summary>
    private EntryStore CreateRecyclingStore(long keptForReuse) => new(new EntryBlocks(CreateMemory(), keptForReuse, SlabPages.PageBytes));

    private static byte[] Bytes(string text) => Encoding.UTF8.GetBytes(text);

    private static EntryMetadata WithFlags(uint flags) => new() { Flags = flags, ExpiresAt = 1000 + flags };

    [Fact]
    public void Add_then_IndexOf_finds_key_value_and_metadata()
    {
        using var store = CreateStore();

        var a = store.Add(Bytes("alpha"), Bytes("one"), WithFlags(1));
        var b = store.Add(Bytes("beta"), Bytes("two!"), WithFlags(2));

        Assert.Equal(2, store.Count);
        Assert.Equal(a, store.IndexOf(Bytes("alpha")));
        Assert.Equal(b, store.IndexOf(Bytes("beta")));
        Assert.NotEqual(a, b);
        Assert.Equal("alpha", Encoding.UTF8.GetString(store.KeyAt(a)));
        Assert.Equal("two!", Encoding.UTF8.GetString(store.ValueAt(b)));
        Assert.Equal(2u, store.MetadataAt(b).Flags);
        Assert.Equal(1001, store.MetadataAt(a).ExpiresAt);
    }

    [Fact]
    public void ExpiringCount_follows_every_way_an_entry_gains_or_loses_its_expiry()
    {
        using var store = CreateStore();
        var forever = store.Add(Bytes("forever"), Bytes("v"), default);
        store.Add(Bytes("expiring"), Bytes("v"), WithFlags(1));
        Assert.Equal(1, store.ExpiringCount);

        store.SetExpiry(forever, 5000);
        Assert.Equal(2, store.ExpiringCount);
        store.SetExpiry(forever, 6000);
        Assert.Equal(2, store.ExpiringCount);
        store.SetMetadata(forever, default);
        Assert.Equal(1, store.ExpiringCount);
        store.SetMetadata(forever, WithFlags(3));
        Assert.Equal(2, store.ExpiringCount);

        store.RemoveAt(store.IndexOf(Bytes("expiring")));
        Assert.Equal(1, store.ExpiringCount);
        store.SetExpiry(store.IndexOf(Bytes("forever")), 0);
        Assert.Equal(0, store.ExpiringCount);

        store.Add(Bytes("again"), Bytes("v"), WithFlags(4));
        store.Clear();
        Assert.Equal(0, store.ExpiringCount);
    }

    [Fact]
    public void IndexOf_is_minus_one_for_a_missing_key_and_compares_by_content()
    {
        using var store = CreateStore();
        store.Add(Bytes("key"), Bytes("v"), default);

        Assert.Equal(-1, store.IndexOf(Bytes("kez")));
        Assert.Equal(-1, store.IndexOf(Bytes("ke")));
        Assert.Equal(-1, store.IndexOf(Bytes("key ")));
        Assert.Equal(-1, store.IndexOf([]));
        Assert.Equal(0, store.IndexOf(Bytes("key").AsSpan()));
    }

    [Fact]
    public void Add_copies_key_and_value_so_later_changes_to_the_callers_buffers_do_not_leak_in()
    {
        using var store = CreateStore();
        var key = Bytes("key");
        var value = Bytes("value");
        store.Add(key, value, default);

        key[0] = (byte)'X';
        value[0] = (byte)'X';

        Assert.Equal(0, store.IndexOf(Bytes("key")));
        Assert.Equal("value", Encoding.UTF8.GetString(store.ValueAt(0)));
    }

    [Fact]
    public void Adding_a_present_key_throws_and_leaves_the_store_unchanged()
    {
        using var store = CreateStore();
        store.Add(Bytes("key"), Bytes("v"), default);
        var used = store.UsedBytes;

        Assert.Throws<InvalidOperationException>(() => store.Add(Bytes("key"), Bytes("other"), default));

        Assert.Equal(1, store.Count);
        Assert.Equal(used, store.UsedBytes);
        Assert.Equal("v", Encoding.UTF8.GetString(store.ValueAt(0)));
    }

    [Fact]
    public void ReplaceValue_of_the_same_length_reuses_the_value_array_and_keeps_metadata()
    {
        using var store = CreateStore();
        var index = store.Add(Bytes("key"), Bytes("aaaa"), WithFlags(7));
        var used = store.UsedBytes;
        ref var before = ref MemoryMarshal.GetReference(store.ValueAt(index));

        store.ReplaceValue(index, Bytes("bbbb"));

        Assert.True(Unsafe.AreSame(ref before, ref MemoryMarshal.GetReference(store.ValueAt(index))));
        Assert.Equal("bbbb", Encoding.UTF8.GetString(store.ValueAt(index)));
        Assert.Equal(used, store.UsedBytes);
        Assert.Equal(7u, store.MetadataAt(index).Flags);
        Assert.Equal(1007, store.MetadataAt(index).ExpiresAt);
    }

    [Fact]
    public void ReplaceValue_of_the_same_length_allocates_nothing()
    {
        using var store = CreateStore();
        var index = store.Add(Bytes("key"), new byte[256], default);
        var first = new byte[256];
        var second = new byte[256];
        Array.Fill(second, (byte)1);
        store.ReplaceValue(index, first);

        var allocated = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < 1000; i++)
        {
            store.ReplaceValue(index, (i & 1) == 0 ? second : first);
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - allocated);
        Assert.True(store.ValueAt(index).SequenceEqual(first));
    }

    [Theory]
    [InlineData("short", "a much longer value")]
    [InlineData("a much longer value", "short")]
    [InlineData("something", "")]
    [InlineData("", "something")]
    public void ReplaceValue_of_another_length_stores_the_new_value_and_adjusts_UsedBytes(string oldValue, string newValue)
    {
        using var store = CreateStore();
        store.Add(Bytes("other"), Bytes("x"), default);
        var index = store.Add(Bytes("key"), Bytes(oldValue), WithFlags(3));
        var used = store.UsedBytes;

        store.ReplaceValue(index, Bytes(newValue));

        Assert.Equal(newValue, Encoding.UTF8.GetString(store.ValueAt(index)));
        Assert.Equal(used - store.SizeOf(3, oldValue.Length) + store.SizeOf(3, newValue.Length), store.UsedBytes);
        Assert.Equal(store.SizeOf(5, 1) + store.SizeOf(3, newValue.Length), store.UsedBytes);
        Assert.Equal(3u, store.MetadataAt(index).Flags);
        Assert.Equal(index, store.IndexOf(Bytes("key")));
    }

    [Fact]
    public void RemoveAt_moves_the_last_entry_into_the_hole()
    {
        using var store = CreateStore();
        store.Add(Bytes("a"), Bytes("1"), WithFlags(1));
        store.Add(Bytes("b"), Bytes("2"), WithFlags(2));
        store.Add(Bytes("c"), Bytes("3"), WithFlags(3));

        store.RemoveAt(0);

        Assert.Equal(2, store.Count);
        Assert.Equal(-1, store.IndexOf(Bytes("a")));
        Assert.Equal(0, store.IndexOf(Bytes("c")));
        Assert.Equal("c", Encoding.UTF8.GetString(store.KeyAt(0)));
        Assert.Equal("3", Encoding.UTF8.GetString(store.ValueAt(0)));
        Assert.Equal(3u, store.MetadataAt(0).Flags);
        Assert.Equal(1, store.IndexOf(Bytes("b")));
        Assert.Throws<ArgumentOutOfRangeException>(() => store.KeyAt(2));
    }

    [Fact]
    public void RemoveAt_of_the_last_entry_moves_nothing()
    {
        using var store = CreateStore();
        store.Add(Bytes("a"), Bytes("1"), default);
        store.Add(Bytes("b"), Bytes("2"), default);

        store.RemoveAt(1);

        Assert.Equal(1, store.Count);
        Assert.Equal(0, store.IndexOf(Bytes("a")));
        Assert.Equal(-1, store.IndexOf(Bytes("b")));
        Assert.Equal(store.SizeOf(1, 1), store.UsedBytes);
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(1)]
    [InlineData(int.MaxValue)]
    public void Indexes_outside_the_entries_throw(int index)
    {
        using var store = CreateStore();
        store.Add(Bytes("a"), Bytes("1"), default);

        Assert.Throws<ArgumentOutOfRangeException>(() => store.KeyAt(index));
        Assert.Throws<ArgumentOutOfRangeException>(() => store.ValueAt(index));
        Assert.Throws<ArgumentOutOfRangeException>(() => store.MetadataAt(index));
        Assert.Throws<ArgumentOutOfRangeException>(() => store.ReplaceValue(index, Bytes("2")));
        Assert.Throws<ArgumentOutOfRangeException>(() => store.RemoveAt(index));
        Assert.Equal(1, store.Count);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(42)]
    [InlineData(20260101)]
    public void Random_adds_replaces_and_removes_match_a_dictionary_model(int seed)
    {
        var random = new Random(seed);
        using var store = CreateStore();
        var model = new Dictionary<string, (byte[] Value, uint Flags)>();
        var nextKey = 0;

        // Rounds of growth then shrinkage, so the entry array grows past 64 and shrinks again.
        for (var step = 0; step < 6000; step++)
        {
            var growing = (step / 500) % 2 == 0;
            var roll = random.Next(100);
            if (model.Count == 0 || roll < (growing ? 60 : 20))
            {
                var key = $"key:{nextKey++}:{new string('k', random.Next(0, 20))}";
                var value = RandomValue(random);
                var flags = (uint)random.Next();
                Assert.Equal(store.Count, store.Add(Bytes(key), value, new EntryMetadata { Flags = flags }));
                model.Add(key, (value, flags));
            }
            else if (roll < (growing ? 75 : 35))
            {
                var index = random.Next(store.Count);
                var key = Encoding.UTF8.GetString(store.KeyAt(index));
                var value = RandomValue(random);
                store.ReplaceValue(index, value);
                model[key] = (value, model[key].Flags);
            }
            else
            {
                var index = random.Next(store.Count);
                var key = Encoding.UTF8.GetString(store.KeyAt(index));
                store.RemoveAt(index);
                Assert.True(model.Remove(key));
                Assert.Equal(-1, store.IndexOf(Bytes(key)));
            }

            AssertMatches(store, model);
        }
    }

    [Fact]
    public void UsedBytes_is_the_sum_of_SizeOf_over_the_entries()
    {
        using var store = CreateStore();
        Assert.Equal(0, store.UsedBytes);

        store.Add(Bytes("k1"), new byte[10], default);
        store.Add(Bytes("key2"), new byte[300], default);
        store.Add(Bytes("k3"), [], default);
        Assert.Equal(store.SizeOf(2, 10) + store.SizeOf(4, 300) + store.SizeOf(2, 0), store.UsedBytes);

        store.RemoveAt(store.IndexOf(Bytes("key2")));
        Assert.Equal(store.SizeOf(2, 10) + store.SizeOf(2, 0), store.UsedBytes);
    }

    [Fact]
    public void SizeOf_charges_every_key_and_value_byte_plus_an_overhead_rounded_up_to_the_block_size()
    {
        using var store = CreateStore();
        var overhead = store.SizeOf(0, 0);

        Assert.True(overhead > 0);

        // Classes are up to an eighth apart, and a slab slot of 4-8 KiB also carries its share of its page's tail.
        foreach (var (key, value) in new[] { (0, 1), (5, 0), (0, 7), (16, 1024), (100, 5000), (3, 200_000), (10, 2 << 20) })
        {
            var size = store.SizeOf(key, value);
            Assert.InRange(size, key + value + 1, overhead + key + value + ((key + value) / 4) + 64);
            Assert.True(store.SizeOf(key, value + 1) >= size);
        }

        Assert.True(store.SizeOf(int.MaxValue, int.MaxValue) >= 2L * int.MaxValue);
    }

    [Fact]
    public void Clear_empties_the_store_and_it_can_be_filled_again()
    {
        using var store = CreateStore();
        for (var i = 0; i < 100; i++)
        {
            store.Add(Bytes($"key{i}"), Bytes($"value{i}"), default);
        }

        store.Clear();

        Assert.Equal(0, store.Count);
        Assert.Equal(0, store.UsedBytes);
        Assert.Equal(-1, store.IndexOf(Bytes("key0")));
        Assert.Throws<ArgumentOutOfRangeException>(() => store.KeyAt(0));

        Assert.Equal(0, store.Add(Bytes("key0"), Bytes("again"), default));
        Assert.Equal(0, store.IndexOf(Bytes("key0")));
        Assert.Equal(store.SizeOf(4, 5), store.UsedBytes);
    }

    private static byte[] RandomValue(Random random)
    {
        var value = new byte[random.Next(0, 40)];
        random.NextBytes(value);
        return value;
    }

    private static void AssertMatches(EntryStore store, Dictionary<string, (byte[] Value, uint Flags)> model)
    {
        Assert.Equal(model.Count, store.Count);
        long expectedBytes = 0;
        foreach (var (key, (value, flags)) in model)
        {
            var keyBytes = Bytes(key);
            var index = store.IndexOf(keyBytes);
            Assert.InRange(index, 0, store.Count - 1);
            Assert.True(store.KeyAt(index).SequenceEqual(keyBytes));
            Assert.True(store.ValueAt(index).SequenceEqual(value));
            Assert.Equal(flags, store.MetadataAt(index).Flags);
            expectedBytes += store.SizeOf(keyBytes.Length, value.Length);
        }

        for (var index = 0; index < store.Count; index++)
        {
            Assert.Equal(index, store.IndexOf(store.KeyAt(index)));
        }

        Assert.Equal(expectedBytes, store.UsedBytes);
    }

    [Fact]
    public void A_full_stores_churn_allocates_nothing_on_the_GC_heap()
    {
        // A full cache evicts one entry for each it adds. Whatever the churn allocated would outlive the write and end
        // as garbage in the GC's oldest generation, which is what kept a managed silo's heap 20-30 MiB over its budget.
        const int Entries = 1000;
        using var store = CreateRecyclingStore(64 * 1024);
        var key = new byte[16];
        var value = new byte[1024];
        for (var i = 0; i < Entries; i++)
        {
            store.Add(KeyNumbered(key, i), value, default);
        }

        Churn(store, key, value, first: Entries, count: 1000);

        // The runtime recompiles hot methods optimized a while after they start, later on a busy machine (right after a
        // build), and that can allocate on this thread once (2,600 B seen, never with tiered compilation off). A churn
        // that allocates per operation allocates in every window, so the window is measured again until one allocates
        // nothing, for at most five seconds.
        const int Window = 5000;
        var next = 2 * Entries;
        var clock = System.Diagnostics.Stopwatch.StartNew();
        long allocated;
        do
        {
            var before = GC.GetAllocatedBytesForCurrentThread();
            Churn(store, key, value, first: next, count: Window);
            allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            next += Window;
        }
        while (allocated != 0 && clock.Elapsed < TimeSpan.FromSeconds(5));

        Assert.Equal(0, allocated);
        Assert.Equal(Entries, store.Count);
        for (var i = next - Entries; i < next; i++)
        {
            var index = store.IndexOf(KeyNumbered(key, i));
            Assert.True(index >= 0, $"key {i} should be there");
            Assert.True(store.ValueAt(index).SequenceEqual(ValueNumbered(value, i)), $"key {i} should have its value");
        }

        Assert.Equal(-1, store.IndexOf(KeyNumbered(key, next - Entries - 1)));
    }

    /// <summary>Adds <paramref name="count"/> numbered entries from <paramref name="first"/> on, removing the oldest for each.</summary>
    private static void Churn(EntryStore store, byte[] key, byte[] value, int first, int count)
    {
        for (var i = first; i < first + count; i++)
        {
            store.RemoveAt(store.IndexOf(KeyNumbered(key, i - store.Count)));
            store.Add(KeyNumbered(key, i), ValueNumbered(value, i), default);
        }
    }

    private static byte[] KeyNumbered(byte[] key, int number)
    {
        key.AsSpan().Fill((byte)'k');
        BitConverter.TryWriteBytes(key, number);
        return key;
    }

    private static byte[] ValueNumbered(byte[] value, int number)
    {
        BitConverter.TryWriteBytes(value, number);
        return value;
    }
}

public sealed class EntryStoreOnManagedMemoryTests : EntryStoreContractTests
{
    private protected override EntryMemory CreateMemory() => new ManagedEntryMemory();
}

public sealed class EntryStoreOnNativeMemoryTests : EntryStoreContractTests
{
    private protected override EntryMemory CreateMemory() => new NativeEntryMemory();
}
