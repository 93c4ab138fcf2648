using System.Text;
using Cubby.Grains;
using Cubby.Grains.Hosting;
using Cubby.Grains.Storage;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Grains;

/// <summary>
/// A grain catalog on a fake clock, with string helpers that route each key to its grain. The test's thread holds the
/// turn of every shard <see cref="GrainOf"/> hands it (<see cref="HeldTurns"/>).
/// </summary>
internal sealed class CatalogHost : IDisposable
{
    public CatalogHost(ShardOptions settings, StoreKind store = StoreKind.Managed)
        : this(settings, StoreKinds.Factory(store))
    {
    }

    public CatalogHost(ShardOptions settings, EntryStores stores)
    {
        Catalog = new ShardCatalog(settings, Time, stores);
    }

    public FakeTimeProvider Time { get; } = new();

    public HeldTurns Turns { get; } = new();

    public ShardCatalog Catalog { get; }

    public long Now => Time.GetUtcNow().ToUnixTimeMilliseconds();

    public void Advance(long milliseconds) => Time.Advance(TimeSpan.FromMilliseconds(milliseconds));

    /// <summary>The shard of <paramref name="key"/>, its turn held by this thread until the host is disposed.</summary>
    public Shard GrainOf(string key) => Turns.Hold(ShardOf(key));

    /// <summary>The shard of <paramref name="key"/>, for a test that takes its turns itself.</summary>
    public Shard ShardOf(string key) => Catalog.GetOrCreate(Encoding.UTF8.GetBytes(key));

    // The helpers take a turn per call, as a command does, so tests with threads of their own can use them too.
    public SetStatus Set(string key, byte[] value, ExpirySpec expiry = default)
    {
        var shard = ShardOf(key);
        using var turn = shard.TakeTurn();
        var none = default(NoReader);
        return shard.Set(Encoding.UTF8.GetBytes(key), value, new SetRequest(WriteCondition.Always, expiry), ref none);
    }

    public bool Exists(string key)
    {
        var shard = ShardOf(key);
        using var turn = shard.TakeTurn();
        return shard.Exists(Encoding.UTF8.GetBytes(key));
    }

    public IEnumerable<Shard> ActiveGrains()
    {
        for (var slot = 0; slot < Catalog.SlotCount; slot++)
        {
            if (Catalog.Find(slot) is { } grain)
            {
                yield return grain;
            }
        }
    }

    public long GrainBytes() => ActiveGrains().Sum(grain => grain.UsedBytes);

    public long ExpiredCount() => ActiveGrains().Sum(grain => grain.ExpiredCount);

    public long EvictedCount() => ActiveGrains().Sum(grain => grain.EvictedCount);

    public void Dispose()
    {
        Turns.Dispose();
        Catalog.Dispose();
    }
}
