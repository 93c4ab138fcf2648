using System.Text;
using BenchmarkDotNet.Attributes;
using Cubby.Sharding;

namespace Cubby.Benchmarks;

/// <summary><see cref="ShardMap.SlotOf(ReadOnlySpan{byte})"/>: xxHash64 of the key (or its hash tag) mod the slot count.</summary>
[MemoryDiagnoser]
public class ShardMapBenchmarks
{
    private readonly ShardMap _map = new();
    private readonly byte[] _shortKey = Encoding.UTF8.GetBytes("key:000042");
    private readonly byte[] _taggedKey = Encoding.UTF8.GetBytes("{user:1000}:session:profile");
    private readonly byte[] _longKey = Encoding.UTF8.GetBytes(new string('k', 200));

    /// <summary>A 10-byte key.</summary>
    /// <returns>The slot.</returns>
    [Benchmark(Baseline = true)]
    public int SlotOfShortKey() => _map.SlotOf(_shortKey);

    /// <summary>A key whose slot comes from its <c>{hash tag}</c>.</summary>
    /// <returns>The slot.</returns>
    [Benchmark]
    public int SlotOfHashTag() => _map.SlotOf(_taggedKey);

    /// <summary>A 200-byte key.</summary>
    /// <returns>The slot.</returns>
    [Benchmark]
    public int SlotOfLongKey() => _map.SlotOf(_longKey);

    /// <summary>The client's path: the key as a string, encoded to UTF-8 first.</summary>
    /// <returns>The slot.</returns>
    [Benchmark]
    public int SlotOfString() => _map.SlotOf("key:000042");
}
