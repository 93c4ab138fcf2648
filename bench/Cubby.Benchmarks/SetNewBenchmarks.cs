using BenchmarkDotNet.Attributes;
using Microsoft.Extensions.Caching.Memory;

namespace Cubby.Benchmarks;

/// <summary>
/// Adds an absent key with a 1 KiB value. Every iteration adds each of 100,000 keys once to an emptied store, so
/// every call really creates an entry.
/// </summary>
[MemoryDiagnoser]
[InvocationCount(StoreData.ChurnKeyCount, 1)]
public class SetNewBenchmarks : IDisposable
{
    private readonly StoreChurn _stores = new();

    /// <summary>Empties every store before each iteration.</summary>
    [IterationSetup]
    public void Empty() => _stores.Empty();

    /// <summary>Adds the next key.</summary>
    [Benchmark(Baseline = true)]
    public void SetNewConcurrentDictionary() => _stores.Dictionary[_stores.Data.Keys[_stores.Data.Next()]] = _stores.Data.Value;

    /// <summary>Adds the next key.</summary>
    /// <returns>The value.</returns>
    [Benchmark]
    public byte[] SetNewMemoryCache() => _stores.MemoryCache.Set(_stores.Data.Keys[_stores.Data.Next()], _stores.Data.Value);

    /// <summary>Adds the next key.</summary>
    /// <returns>Whether it was stored.</returns>
    [Benchmark]
    public int SetNewCubbyManaged() => (int)_stores.Managed.Set(_stores.Data.KeyBytes[_stores.Data.Next()], _stores.Data.Value);

    /// <summary>Adds the next key.</summary>
    /// <returns>Whether it was stored.</returns>
    [Benchmark]
    public int SetNewCubbyNative() => (int)_stores.Native.Set(_stores.Data.KeyBytes[_stores.Data.Next()], _stores.Data.Value);

    /// <summary>Frees the stores.</summary>
    [GlobalCleanup]
    public void Dispose()
    {
        _stores.Dispose();
        GC.SuppressFinalize(this);
    }
}
