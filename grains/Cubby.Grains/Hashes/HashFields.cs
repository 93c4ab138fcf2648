using System.Buffers.Binary;

namespace Cubby.Grains.Hashes;

/// <summary>
/// A hash stored as one value: the number of fields (4 bytes, little-endian), then each field and its value, each
/// preceded by its length (LEB128). The hashes .NET's Redis cache writes (absexp, sldexp, data) and most cache hashes
/// are small, so a read or a rewrite is one pass over a few bytes; a hash is bounded by <c>Cubby:MaxValueBytes</c> as a
/// string is, and is evicted, expired and moved with its shard as one entry.
/// </summary>
internal readonly ref struct HashFields
{
    private readonly ReadOnlySpan<byte> _encoded;

    /// <param name="encoded">An encoding written by <see cref="HashBuilder"/>; empty for an absent hash.</param>
    public HashFields(ReadOnlySpan<byte> encoded) => _encoded = encoded;

    public int Count => _encoded.IsEmpty ? 0 : BinaryPrimitives.ReadInt32LittleEndian(_encoded);

    public Enumerator GetEnumerator() => new(_encoded.IsEmpty ? default : _encoded[sizeof(int)..]);

    public bool TryGet(ReadOnlySpan<byte> field, out ReadOnlySpan<byte> value)
    {
        foreach (var entry in this)
        {
            if (entry.Field.SequenceEqual(field))
            {
                value = entry.Value;
                return true;
            }
        }

        value = default;
        return false;
    }

    public bool Contains(ReadOnlySpan<byte> field) => TryGet(field, out _);

    /// <summary>One field and its value, in stored order.</summary>
    public readonly ref struct Entry(ReadOnlySpan<byte> field, ReadOnlySpan<byte> value)
    {
        public ReadOnlySpan<byte> Field { get; } = field;

        public ReadOnlySpan<byte> Value { get; } = value;
    }

    public ref struct Enumerator
    {
        private ReadOnlySpan<byte> _rest;

        internal Enumerator(ReadOnlySpan<byte> entries) => _rest = entries;

        public Entry Current { get; private set; }

        public bool MoveNext()
        {
            if (_rest.IsEmpty)
            {
                return false;
            }

            var field = Take(_rest, out var used);
            _rest = _rest[used..];
            var value = Take(_rest, out used);
            _rest = _rest[used..];
            Current = new Entry(field, value);
            return true;
        }

        /// <summary>The length-prefixed bytes at the start of <paramref name="bytes"/>; <paramref name="used"/> counts the prefix too.</summary>
        private static ReadOnlySpan<byte> Take(ReadOnlySpan<byte> bytes, out int used)
        {
            var length = 0;
            var shift = 0;
            var position = 0;
            byte next;
            do
            {
                next = bytes[position++];
                length |= (next & 0x7F) << shift;
                shift += 7;
            }
            while ((next & 0x80) != 0);

            used = position + length;
            return bytes.Slice(position, length);
        }
    }
}
