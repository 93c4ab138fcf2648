using System.Text;
using Cubby.Grains;
using Cubby.Grains.Capacity;
using Cubby.Grains.Hosting;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class ApproximateLruTests
{
    private const int Keys = 400;
    private const int Hot = 100;
    private const int Writes = 100;

    [Fact]
    public void Evictions_take_cold_entries_and_spare_recently_read_ones()
    {
        var size = EntrySize();
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 8, MaxMemoryBytes = Keys * size });
        var evictor = new Evictor(host.Catalog);
        var value = new byte[32];
        for (var i = 0; i < Keys; i++)
        {
            Assert.Equal(SetStatus.Created, host.Set(Key(i), value));
        }

        // LastAccess counts whole seconds, so reads must happen in a later second to count as more recent.
        host.Advance(1500);
        var none = default(NoReader);
        for (var i = 0; i < Keys; i += Keys / Hot)
        {
            Assert.True(host.GrainOf(Key(i)).Read(Encoding.UTF8.GetBytes(Key(i)), slide: false, ref none));
        }

        for (var i = 0; i < Writes; i++)
        {
            Assert.True(evictor.MakeRoom(size));
            Assert.Equal(SetStatus.Created, host.Set($"n:{i:000}", value));
        }

        var hotSurvivors = 0;
        var coldEvicted = 0;
        for (var i = 0; i < Keys; i++)
        {
            var alive = host.Exists(Key(i));
            if (i % (Keys / Hot) == 0)
            {
                hotSurvivors += alive ? 1 : 0;
            }
            else
            {
                coldEvicted += alive ? 0 : 1;
            }
        }

        Assert.Equal(Writes, host.EvictedCount());
        Assert.InRange(hotSurvivors, 90, Hot);
        Assert.InRange(coldEvicted, 90, Writes);
    }

    private static string Key(int i) => $"k:{i:000}";

    private static long EntrySize()
    {
        using var sizer = new EntryStore();
        return sizer.SizeOf(5, 32);
    }
}
