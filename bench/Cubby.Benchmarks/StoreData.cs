using System.Text;

namespace Cubby.Benchmarks;

/// <summary>The keys and value every store benchmark uses, as strings for the .NET caches and UTF-8 for Cubby's.</summary>
internal sealed class StoreData
{
    /// <summary>Keys in a full store for reads and overwrites, as in the load harness.</summary>
    public const int KeyCount = 10_000;

    /// <summary>Keys added or removed per iteration: enough that an iteration lasts tens of milliseconds.</summary>
    public const int ChurnKeyCount = 100_000;

    public const int ValueBytes = 1024;

    private readonly int _count;
    private int _next = -1;

    public StoreData(int count = KeyCount)
    {
        _count = count;
        Keys = [.. Enumerable.Range(0, count).Select(i => $"key:{i:D6}")];
        KeyBytes = [.. Keys.Select(Encoding.UTF8.GetBytes)];
        MissingKeys = [.. Enumerable.Range(0, count).Select(i => $"missing:{i:D6}")];
        MissingKeyBytes = [.. MissingKeys.Select(Encoding.UTF8.GetBytes)];
        Value = new byte[ValueBytes];
        new Random(42).NextBytes(Value);
    }

    public string[] Keys { get; }

    public byte[][] KeyBytes { get; }

    public string[] MissingKeys { get; }

    public byte[][] MissingKeyBytes { get; }

    public byte[] Value { get; }

    /// <summary>The next key index, walking every key in turn so no single entry stays hot in cache.</summary>
    public int Next() => _next = _next + 1 == _count ? 0 : _next + 1;

    public void Restart() => _next = -1;
}
