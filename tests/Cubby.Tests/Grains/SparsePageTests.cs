using System.Text;
using Cubby.Grains;
using Cubby.Grains.Hosting;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

/// <summary>
/// The evictor gives back slab pages that a shrinking size class left sparse (<see cref="SlabPages"/>), moving what
/// still lives in them: far below the budget nothing is lost for it, in attached shards or detached ones (replicas).
/// </summary>
public sealed class SparsePageTests
{
    private const long Budget = 4L * 1024 * 1024;
    private const long Slack = 256L * 1024;

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void Free_slots_a_shrinking_class_leaves_are_given_back_while_writes_overflow_the_budget(StoreKind kind)
    {
        var stores = kind == StoreKind.Native ? EntryStores.Native(0, Slack) : EntryStores.Managed(0, Slack);
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 16, MaxMemoryBytes = Budget }, stores);
        var slabs = host.Catalog.Slabs;
        var large = new byte[3000];
        var largeCount = (int)(Budget * 3 / 4 / large.Length);
        for (var i = 0; i < largeCount; i++)
        {
            Assert.Equal(SetStatus.Created, host.Set($"large:{i}", large));
        }

        // Seven of every eight large entries go: their pages keep one live block in eight, which no other class can use.
        for (var i = 0; i < largeCount; i++)
        {
            if (i % 8 != 0)
            {
                Assert.True(host.GrainOf($"large:{i}").Remove(Encoding.UTF8.GetBytes($"large:{i}")));
            }
        }

        Assert.True(slabs.FreeBytes > 8 * Slack, $"{slabs.FreeBytes} free slot bytes after the removals");

        var small = Encoding.UTF8.GetBytes(new string('s', 100));
        var smallCount = (int)(2 * Budget / small.Length);
        for (var i = 0; i < smallCount; i++)
        {
            Assert.NotEqual(SetStatus.OutOfMemory, host.Set($"small:{i}", small));
        }

        Assert.InRange(slabs.FreeBytes, 0, Slack + (2 * SlabPages.PageBytes));
        Assert.True(slabs.PagesEmptied > 0);
        Assert.InRange(slabs.ResidentBytes, 0, Budget + Slack + (2 * SlabPages.PageBytes));
        Assert.Equal(host.GrainBytes(), host.Catalog.Budget.Used);

        // Emptying pages must not gut the cache; which entries survive is eviction's choice (approximate LRU, and on
        // this clock every entry is as recent as the next), but whatever survives holds what was written.
        Assert.InRange(host.Catalog.Budget.Used, Budget / 2, Budget);
        var survivors = 0;
        for (var i = smallCount - 1000; i < smallCount; i++)
        {
            if (Read(host, $"small:{i}") is { } value)
            {
                Assert.Equal(small, value);
                survivors++;
            }
        }

        Assert.True(survivors > 0);

        for (var i = 0; i < largeCount; i += 8)
        {
            Assert.True(Read(host, $"large:{i}") is null or { Length: 3000 }, $"large:{i} survived changed");
        }
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void Emptying_sparse_pages_far_below_the_budget_moves_every_entry_and_loses_none(StoreKind kind)
    {
        var stores = kind == StoreKind.Native ? EntryStores.Native(0, Slack) : EntryStores.Managed(0, Slack);
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 16, MaxMemoryBytes = 16 * Budget }, stores);
        var slabs = host.Catalog.Slabs;

        // A replica is a shard the catalog made but never attached; its blocks share the pages of the attached shards'.
        var replica = host.Catalog.CreateDetached(3);
        var replicaKeys = Enumerable.Range(0, 4_000).Select(i => $"r{i}").Where(key => host.Catalog.ShardMap.SlotOf(Encoding.UTF8.GetBytes(key)) == 3).ToArray();
        const int Count = 1_200;
        for (var i = 0; i < Count; i++)
        {
            Assert.Equal(SetStatus.Created, host.Set($"large:{i}", ValueOf($"large:{i}")));
            if (i < replicaKeys.Length)
            {
                using var turn = replica.TakeTurn();
                var none = default(NoReader);
                Assert.Equal(SetStatus.Created, replica.Set(Encoding.UTF8.GetBytes(replicaKeys[i]), ValueOf(replicaKeys[i]), new SetRequest(WriteCondition.Always, default), ref none));
            }
        }

        // Seven of every eight go from both: what stays is spread one block in eight over pages no other class can use.
        for (var i = 0; i < Count; i++)
        {
            if (i % 8 != 0)
            {
                Assert.True(host.GrainOf($"large:{i}").Remove(Encoding.UTF8.GetBytes($"large:{i}")));
            }
        }

        var replicaKept = replicaKeys.Where((_, i) => i % 8 == 0).ToArray();
        foreach (var key in replicaKeys.Except(replicaKept))
        {
            using var turn = replica.TakeTurn();
            Assert.True(replica.Remove(Encoding.UTF8.GetBytes(key)));
        }

        Assert.True(slabs.FreeBytes > 8 * Slack, $"{slabs.FreeBytes} free slot bytes after the removals");
        var used = host.Catalog.Budget.Used;

        // Small writes, a few hundred kilobytes against a 64 MiB budget, empty the sparse pages as they grow.
        var small = new byte[100];
        for (var i = 0; i < 2_000; i++)
        {
            Assert.Equal(SetStatus.Created, host.Set($"small:{i}", small));
        }

        Assert.True(slabs.PagesEmptied > 0);
        Assert.InRange(slabs.FreeBytes, 0, Slack + (2 * SlabPages.PageBytes));
        Assert.Equal(0, host.EvictedCount());
        Assert.True(host.Catalog.Budget.Used > used, "the small writes were charged and nothing was released");
        for (var i = 0; i < Count; i += 8)
        {
            Assert.Equal(ValueOf($"large:{i}"), Read(host, $"large:{i}"));
        }

        foreach (var key in replicaKept)
        {
            var reader = new CapturingReader();
            using var turn = replica.TakeTurn();
            Assert.True(replica.Read(Encoding.UTF8.GetBytes(key), slide: false, ref reader), $"{key} is gone from the replica");
            Assert.Equal(ValueOf(key), reader.Value);
        }

        replica.Dispose();
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void Entries_moved_out_of_emptied_pages_while_other_threads_write_and_read_keep_their_values(StoreKind kind)
    {
        const int Threads = 4;
        const int Rounds = 12;
        var stores = kind == StoreKind.Native ? EntryStores.Native(0, Slack) : EntryStores.Managed(0, Slack);
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 16, MaxMemoryBytes = 16 * Budget }, stores);

        // Each thread grows the large class and shrinks it to one entry in eight, round after round, and checks every
        // entry it kept: pages are emptied under it by whichever thread's write passes the slack, in any shard.
        Concurrently.Run(Threads, thread =>
        {
            var kept = new List<string>();
            for (var round = 0; round < Rounds; round++)
            {
                var large = Enumerable.Range(0, 160).Select(i => $"t{thread}:r{round}:large:{i}").ToArray();
                foreach (var key in large)
                {
                    Assert.Equal(SetStatus.Created, host.Set(key, ValueOf(key)));
                }

                for (var i = 0; i < large.Length; i++)
                {
                    if (i % 8 == 0)
                    {
                        kept.Add(large[i]);
                    }
                    else
                    {
                        var shard = host.ShardOf(large[i]);
                        using var turn = shard.TakeTurn();
                        Assert.True(shard.Remove(Encoding.UTF8.GetBytes(large[i])));
                    }
                }

                for (var i = 0; i < 100; i++)
                {
                    var key = $"t{thread}:r{round}:small:{i}";
                    Assert.Equal(SetStatus.Created, host.Set(key, Encoding.UTF8.GetBytes(key)));
                }

                foreach (var key in kept)
                {
                    Assert.Equal(ValueOf(key), ReadInTurn(host, key));
                }
            }
        });

        Assert.True(host.Catalog.Slabs.PagesEmptied > 0);
        Assert.Equal(0, host.EvictedCount());
    }

    private static byte[]? ReadInTurn(CatalogHost host, string key)
    {
        var shard = host.ShardOf(key);
        var reader = new CapturingReader();
        using var turn = shard.TakeTurn();
        return shard.Read(Encoding.UTF8.GetBytes(key), slide: false, ref reader) ? reader.Value : null;
    }

    /// <summary>3,000 bytes that differ from key to key, so an entry moved wrong reads back wrong.</summary>
    private static byte[] ValueOf(string key)
    {
        var value = new byte[3000];
        var name = Encoding.UTF8.GetBytes(key);
        for (var i = 0; i < value.Length; i++)
        {
            value[i] = name[i % name.Length];
        }

        return value;
    }

    private static byte[]? Read(CatalogHost host, string key)
    {
        var reader = new CapturingReader();
        return host.GrainOf(key).Read(Encoding.UTF8.GetBytes(key), slide: false, ref reader) ? reader.Value : null;
    }
}
