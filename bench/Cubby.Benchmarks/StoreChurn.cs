using System.Collections.Concurrent;
using Cubby.Grains.Storage;
using Microsoft.Extensions.Caching.Memory;

namespace Cubby.Benchmarks;

/// <summary>
/// The four stores compared, for benchmarks that add or remove keys: each iteration runs exactly one operation per
/// key, after an iteration setup that empties (for adds) or fills (for removes) every store.
/// </summary>
internal sealed class StoreChurn : IDisposable
{
    public StoreData Data { get; } = new(StoreData.ChurnKeyCount);

    public ConcurrentDictionary<string, byte[]> Dictionary { get; } = new();

    public MemoryCache MemoryCache { get; } = new(new MemoryCacheOptions());

    public CubbyStore Managed { get; } = new(EntryStores.Managed(0, SlabPages.PageBytes));

    public CubbyStore Native { get; } = new(EntryStores.Native(0, SlabPages.PageBytes));

    public void Empty()
    {
        Data.Restart();
        Dictionary.Clear();
        MemoryCache.Clear();
        foreach (var key in Data.KeyBytes)
        {
            Managed.Remove(key);
            Native.Remove(key);
        }
    }

    public void Fill()
    {
        Empty();
        for (var i = 0; i < StoreData.ChurnKeyCount; i++)
        {
            Dictionary[Data.Keys[i]] = Data.Value;
            MemoryCache.Set(Data.Keys[i], Data.Value);
            Managed.Set(Data.KeyBytes[i], Data.Value);
            Native.Set(Data.KeyBytes[i], Data.Value);
        }

        Data.Restart();
    }

    public void Dispose()
    {
        MemoryCache.Dispose();
        Managed.Dispose();
        Native.Dispose();
    }
}
