using BenchmarkDotNet.Attributes;

namespace Cubby.Benchmarks;

/// <summary>
/// Removes a present key. Every iteration removes each of 100,000 keys once from a refilled store, so every call
/// really removes an entry.
/// </summary>
[MemoryDiagnoser]
[InvocationCount(StoreData.ChurnKeyCount, 1)]
public class RemoveBenchmarks : IDisposable
{
    private readonly StoreChurn _stores = new();

    /// <summary>Fills every store before each iteration.</summary>
    [IterationSetup]
    public void Fill() => _stores.Fill();

    /// <summary>Removes the next key.</summary>
    /// <returns>Whether it was there.</returns>
    [Benchmark(Baseline = true)]
    public bool RemoveConcurrentDictionary() => _stores.Dictionary.TryRemove(_stores.Data.Keys[_stores.Data.Next()], out _);

    /// <summary>Removes the next key.</summary>
    [Benchmark]
    public void RemoveMemoryCache() => _stores.MemoryCache.Remove(_stores.Data.Keys[_stores.Data.Next()]);

    /// <summary>Removes the next key.</summary>
    /// <returns>Whether it was there.</returns>
    [Benchmark]
    public bool RemoveCubbyManaged() => _stores.Managed.Remove(_stores.Data.KeyBytes[_stores.Data.Next()]);

    /// <summary>Removes the next key.</summary>
    /// <returns>Whether it was there.</returns>
    [Benchmark]
    public bool RemoveCubbyNative() => _stores.Native.Remove(_stores.Data.KeyBytes[_stores.Data.Next()]);

    /// <summary>Frees the stores.</summary>
    [GlobalCleanup]
    public void Dispose()
    {
        _stores.Dispose();
        GC.SuppressFinalize(this);
    }
}
