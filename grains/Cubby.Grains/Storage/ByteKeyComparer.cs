using System.IO.Hashing;

namespace Cubby.Grains.Storage;

/// <summary>
/// Compares byte-array keys by content and lets a dictionary be probed with a span, so lookups allocate nothing.
/// The hash is seeded per process so clients cannot pick keys that all collide.
/// </summary>
internal sealed class ByteKeyComparer : IEqualityComparer<byte[]>, IAlternateEqualityComparer<ReadOnlySpan<byte>, byte[]>
{
    private readonly long _seed = Random.Shared.NextInt64();

    public static ByteKeyComparer Instance { get; } = new();

    public bool Equals(byte[]? x, byte[]? y) => ReferenceEquals(x, y) || (x is not null && y is not null && x.AsSpan().SequenceEqual(y));

    public int GetHashCode(byte[] obj) => GetHashCode((ReadOnlySpan<byte>)obj);

    public bool Equals(ReadOnlySpan<byte> alternate, byte[] other) => alternate.SequenceEqual(other);

    public int GetHashCode(ReadOnlySpan<byte> alternate) => (int)XxHash64.HashToUInt64(alternate, _seed);

    public byte[] Create(ReadOnlySpan<byte> alternate) => alternate.ToArray();
}
