using System.Text;
using Cubby.Grains;
using Cubby.Grains.Hosting;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

/// <summary>The evictor gives back slab pages that a shrinking size class left sparse (<see cref="SlabPages"/>).</summary>
public sealed class SparsePageTests
{
    private const long Budget = 4L * 1024 * 1024;
    private const long Slack = 256L * 1024;

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void Free_slots_a_shrinking_class_leaves_are_given_back_by_evicting_what_still_lives_in_their_pages(StoreKind kind)
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

    private static byte[]? Read(CatalogHost host, string key)
    {
        var reader = new CapturingReader();
        return host.GrainOf(key).Read(Encoding.UTF8.GetBytes(key), slide: false, ref reader) ? reader.Value : null;
    }
}
