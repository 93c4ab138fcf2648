using System.Buffers.Binary;
using System.IO.Hashing;

namespace Cubby.Grains.Storage;

/// <summary>
/// Compares the blocks of <see cref="ManagedEntryStore"/> by their keys alone, so one array holds an entry's key and
/// value and is also its dictionary key; lookups probe with a key span and allocate nothing. A block starts with its
/// key's length (4 bytes, little-endian), then the key, then the value. The hash is seeded per process so clients
/// cannot pick keys that all collide.
/// </summary>
internal sealed class EntryBlockComparer : IEqualityComparer<byte[]>, IAlternateEqualityComparer<ReadOnlySpan<byte>, byte[]>
{
    /// <summary>The bytes before a block's key.</summary>
    public const int KeyOffset = sizeof(int);

    private readonly long _seed = Random.Shared.NextInt64();

    public static EntryBlockComparer Instance { get; } = new();

    /// <summary>The key of <paramref name="block"/>.</summary>
    public static ReadOnlySpan<byte> KeyOf(byte[] block) => block.AsSpan(KeyOffset, BinaryPrimitives.ReadInt32LittleEndian(block));

    public bool Equals(byte[]? x, byte[]? y) => ReferenceEquals(x, y) || (x is not null && y is not null && KeyOf(x).SequenceEqual(KeyOf(y)));

    public int GetHashCode(byte[] obj) => GetHashCode(KeyOf(obj));

    public bool Equals(ReadOnlySpan<byte> alternate, byte[] other) => alternate.SequenceEqual(KeyOf(other));

    public int GetHashCode(ReadOnlySpan<byte> alternate) => (int)XxHash64.HashToUInt64(alternate, _seed);

    /// <summary>Never called: the store adds blocks, not spans.</summary>
    public byte[] Create(ReadOnlySpan<byte> alternate) => throw new NotSupportedException("Entries are added as whole blocks.");
}
