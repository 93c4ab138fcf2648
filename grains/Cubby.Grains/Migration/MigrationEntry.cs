using Cubby.Grains.Storage;

namespace Cubby.Grains.Migration;

/// <summary>One entry read from a migration chunk; the spans point into the chunk.</summary>
internal readonly ref struct MigrationEntry
{
    public MigrationEntry(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, EntryMetadata metadata)
    {
        Key = key;
        Value = value;
        Metadata = metadata;
    }

    public ReadOnlySpan<byte> Key { get; }

    public ReadOnlySpan<byte> Value { get; }

    /// <summary>Flags and expiry as the old owner held them; <see cref="EntryMetadata.LastAccess"/> is 0.</summary>
    public EntryMetadata Metadata { get; }
}
