using System.IO.Hashing;

namespace Cubby.Text;

/// <summary>
/// Compares Redis's binary-safe strings (keys, channel names) held as byte arrays by content, and lets a dictionary be
/// probed with a span, so lookups allocate nothing. The hash is seeded per process so clients cannot pick strings that
/// all collide.
/// </summary>
public sealed class ByteStringComparer : IEqualityComparer<byte[]>, IAlternateEqualityComparer<ReadOnlySpan<byte>, byte[]>
{
    private readonly long _seed = Random.Shared.NextInt64();

    private ByteStringComparer()
    {
    }

    /// <summary>The one instance.</summary>
    public static ByteStringComparer Instance { get; } = new();

    /// <inheritdoc/>
    public bool Equals(byte[]? x, byte[]? y) => ReferenceEquals(x, y) || (x is not null && y is not null && x.AsSpan().SequenceEqual(y));

    /// <inheritdoc/>
    public int GetHashCode(byte[] obj) => GetHashCode((ReadOnlySpan<byte>)obj);

    /// <inheritdoc/>
    public bool Equals(ReadOnlySpan<byte> alternate, byte[] other) => alternate.SequenceEqual(other);

    /// <inheritdoc/>
    public int GetHashCode(ReadOnlySpan<byte> alternate) => (int)XxHash64.HashToUInt64(alternate, _seed);

    /// <inheritdoc/>
    public byte[] Create(ReadOnlySpan<byte> alternate) => alternate.ToArray();
}
