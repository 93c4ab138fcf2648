using System.Collections.Concurrent;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using Cubby.Grains.Storage;
using Microsoft.Extensions.Caching.Memory;

namespace Cubby.Benchmarks;

/// <summary>
/// Reads and overwrites on a full store of 10,000 keys with 1 KiB values: Cubby's shard grains (managed and native
/// stores, slot hashing included) against <see cref="ConcurrentDictionary{TKey, TValue}"/> and <see cref="MemoryCache"/>.
/// Every key starts with a value array of its own in every store, so a read touches as much distinct memory in each;
/// on a write the .NET caches keep a reference to the caller's array, while Cubby copies the value into its store.
/// </summary>
[MemoryDiagnoser]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
[CategoriesColumn]
public class StoreBenchmarks : IDisposable
{
    private readonly StoreData _data = new();
    private readonly ConcurrentDictionary<string, byte[]> _dictionary = new();
    private readonly MemoryCache _memoryCache = new(new MemoryCacheOptions());
    private readonly CubbyStore _managed = new(EntryStores.Managed(0, SlabPages.PageBytes));
    private readonly CubbyStore _native = new(EntryStores.Native(0, SlabPages.PageBytes));

    /// <summary>Fills every store with the same keys and values.</summary>
    [GlobalSetup]
    public void Fill()
    {
        for (var i = 0; i < StoreData.KeyCount; i++)
        {
            _dictionary[_data.Keys[i]] = _data.Value.ToArray();
            _memoryCache.Set(_data.Keys[i], _data.Value.ToArray());
            _managed.Set(_data.KeyBytes[i], _data.Value);
            _native.Set(_data.KeyBytes[i], _data.Value);
        }
    }

    /// <summary>Looks up a present key.</summary>
    /// <returns>The value's length.</returns>
    [Benchmark(Baseline = true)]
    [BenchmarkCategory("GetHit")]
    public int GetHitConcurrentDictionary() => _dictionary.TryGetValue(_data.Keys[_data.Next()], out var value) ? value.Length : -1;

    /// <summary>Looks up a present key.</summary>
    /// <returns>The value's length.</returns>
    [Benchmark]
    [BenchmarkCategory("GetHit")]
    public int GetHitMemoryCache() => _memoryCache.TryGetValue(_data.Keys[_data.Next()], out byte[]? value) ? value!.Length : -1;

    /// <summary>Looks up a present key.</summary>
    /// <returns>The value's length.</returns>
    [Benchmark]
    [BenchmarkCategory("GetHit")]
    public int GetHitCubbyManaged() => _managed.Get(_data.KeyBytes[_data.Next()]);

    /// <summary>Looks up a present key.</summary>
    /// <returns>The value's length.</returns>
    [Benchmark]
    [BenchmarkCategory("GetHit")]
    public int GetHitCubbyNative() => _native.Get(_data.KeyBytes[_data.Next()]);

    /// <summary>Looks up an absent key.</summary>
    /// <returns>-1.</returns>
    [Benchmark(Baseline = true)]
    [BenchmarkCategory("GetMiss")]
    public int GetMissConcurrentDictionary() => _dictionary.TryGetValue(_data.MissingKeys[_data.Next()], out var value) ? value.Length : -1;

    /// <summary>Looks up an absent key.</summary>
    /// <returns>-1.</returns>
    [Benchmark]
    [BenchmarkCategory("GetMiss")]
    public int GetMissMemoryCache() => _memoryCache.TryGetValue(_data.MissingKeys[_data.Next()], out byte[]? value) ? value!.Length : -1;

    /// <summary>Looks up an absent key.</summary>
    /// <returns>-1.</returns>
    [Benchmark]
    [BenchmarkCategory("GetMiss")]
    public int GetMissCubbyManaged() => _managed.Get(_data.MissingKeyBytes[_data.Next()]);

    /// <summary>Looks up an absent key.</summary>
    /// <returns>-1.</returns>
    [Benchmark]
    [BenchmarkCategory("GetMiss")]
    public int GetMissCubbyNative() => _native.Get(_data.MissingKeyBytes[_data.Next()]);

    /// <summary>Replaces a present key's value with one of the same size.</summary>
    [Benchmark(Baseline = true)]
    [BenchmarkCategory("SetOverwrite")]
    public void SetOverwriteConcurrentDictionary() => _dictionary[_data.Keys[_data.Next()]] = _data.Value;

    /// <summary>Replaces a present key's value with one of the same size.</summary>
    /// <returns>The value.</returns>
    [Benchmark]
    [BenchmarkCategory("SetOverwrite")]
    public byte[] SetOverwriteMemoryCache() => _memoryCache.Set(_data.Keys[_data.Next()], _data.Value);

    /// <summary>Replaces a present key's value with one of the same size.</summary>
    /// <returns>Whether it was stored.</returns>
    [Benchmark]
    [BenchmarkCategory("SetOverwrite")]
    public int SetOverwriteCubbyManaged() => (int)_managed.Set(_data.KeyBytes[_data.Next()], _data.Value);

    /// <summary>Replaces a present key's value with one of the same size.</summary>
    /// <returns>Whether it was stored.</returns>
    [Benchmark]
    [BenchmarkCategory("SetOverwrite")]
    public int SetOverwriteCubbyNative() => (int)_native.Set(_data.KeyBytes[_data.Next()], _data.Value);

    /// <summary>Frees the stores.</summary>
    [GlobalCleanup]
    public void Dispose()
    {
        _memoryCache.Dispose();
        _managed.Dispose();
        _native.Dispose();
        GC.SuppressFinalize(this);
    }
}
