namespace Cubby.Grains.Storage;

/// <summary>
/// The entries of one shard grain. Entries are addressed by a dense index (0..Count-1) so a grain can sample them
/// at random for expiry and eviction. An index is valid until the next <see cref="Add"/> or <see cref="RemoveAt"/>.
/// Not thread-safe: the owning grain calls it inside its turn only.
/// </summary>
internal interface IEntryStore : IDisposable
{
    int Count { get; }

    /// <summary>Bytes charged for the entries, as <see cref="SizeOf"/> counts them.</summary>
    long UsedBytes { get; }

    /// <summary>The index of <paramref name="key"/>, or -1.</summary>
    int IndexOf(ReadOnlySpan<byte> key);

    ReadOnlySpan<byte> KeyAt(int index);

    ReadOnlySpan<byte> ValueAt(int index);

    ref EntryMetadata MetadataAt(int index);

    /// <summary>Adds an entry whose key is absent; returns its index.</summary>
    int Add(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, in EntryMetadata metadata);

    /// <summary>Replaces the value at <paramref name="index"/>, keeping its metadata.</summary>
    void ReplaceValue(int index, ReadOnlySpan<byte> value);

    /// <summary>Removes the entry at <paramref name="index"/>; the last entry takes its index.</summary>
    void RemoveAt(int index);

    void Clear();

    /// <summary>Whether the entry at <paramref name="index"/> lives in the native block at <paramref name="block"/> (a slab slot being drained).</summary>
    bool HoldsBlockAt(int index, nint block);

    /// <summary>The bytes charged for an entry of the given sizes.</summary>
    long SizeOf(int keyLength, int valueLength);
}
