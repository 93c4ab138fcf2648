using System.Collections.Concurrent;

namespace Cubby.Client.Tagging;

/// <summary>
/// One <see cref="WrittenEpochs"/> for each tag header this process has read, shared by every entry written under it.
/// Most entries share a handful of headers (an untagged HybridCache entry carries only the epoch of <c>"*"</c>), so
/// a local hit's tag check reads an object that every other hit keeps in the processor's cache, and what one entry's
/// check learned (the tag keys' near cache entries, the stamp) serves the others.
/// </summary>
internal sealed class WrittenEpochsTable
{
    // Headers differ by tag set and by epoch, and a removal makes a new epoch: forgetting all at this many keeps the
    // table small whatever tags an app uses; entries hold on to theirs.
    private const int Capacity = 1024;

    private readonly ConcurrentDictionary<byte[], WrittenEpochs> _byHeader = new(HeaderBytes.Comparer);
    private readonly ConcurrentDictionary<byte[], WrittenEpochs>.AlternateLookup<ReadOnlySpan<byte>> _lookup;

    public WrittenEpochsTable() => _lookup = _byHeader.GetAlternateLookup<ReadOnlySpan<byte>>();

    /// <summary>The epochs of the header <paramref name="payload"/> starts with, and where its value starts; false when it has none.</summary>
    public bool TryRead(ReadOnlySpan<byte> payload, out int valueOffset, out WrittenEpochs epochs)
    {
        epochs = null!;
        if (!TaggedPayload.TryMeasure(payload, out valueOffset))
        {
            return false;
        }

        var header = payload[..valueOffset];
        if (_lookup.TryGetValue(header, out var shared))
        {
            epochs = shared;
            return true;
        }

        TaggedPayload.TryRead(payload, out var parsed);
        epochs = new WrittenEpochs(parsed);
        if (_byHeader.Count >= Capacity)
        {
            _byHeader.Clear();
        }

        epochs = _byHeader.GetOrAdd(header.ToArray(), epochs);
        return true;
    }

    /// <summary>Header bytes compared by content, looked up by span without a copy.</summary>
    private sealed class HeaderBytes : IEqualityComparer<byte[]>, IAlternateEqualityComparer<ReadOnlySpan<byte>, byte[]>
    {
        public static readonly HeaderBytes Comparer = new();

        public bool Equals(byte[]? x, byte[]? y) => x.AsSpan().SequenceEqual(y);

        public int GetHashCode(byte[] bytes) => GetHashCode(bytes.AsSpan());

        public bool Equals(ReadOnlySpan<byte> alternate, byte[] other) => alternate.SequenceEqual(other);

        public int GetHashCode(ReadOnlySpan<byte> alternate)
        {
            var hash = default(HashCode);
            hash.AddBytes(alternate);
            return hash.ToHashCode();
        }

        public byte[] Create(ReadOnlySpan<byte> alternate) => alternate.ToArray();
    }
}
