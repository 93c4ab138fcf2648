using System.Buffers;
using Cubby.Grains.Capacity;
using Cubby.Grains.Hashes;
using Cubby.Grains.Storage;
using Cubby.Sharding;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    /// <summary>
    /// Reads a live hash (its encoding, see <see cref="HashFields"/>), renewing a sliding expiry; false when absent.
    /// A string there is a <see cref="WrongTypeException"/>.
    /// </summary>
    public bool ReadHash<TReader>(ReadOnlySpan<byte> key, ref TReader reader)
        where TReader : IEntryReader, allows ref struct
    {
        RequireTurn();
        var now = Now();
        var index = FindHash(key, now);
        if (index < 0)
        {
            return false;
        }

        ref var metadata = ref Touch(index, now, slide: true);
        reader.Read(_store.ValueAt(index), metadata, now);
        return true;
    }

    /// <summary>
    /// Rewrites a hash (creating it when absent) with <paramref name="edit"/>, built in <paramref name="scratch"/>; a hash
    /// left without fields is removed, as Redis removes it. The key keeps its expiry. A string there is a
    /// <see cref="WrongTypeException"/>.
    /// </summary>
    public UpdateStatus EditHash<TEdit>(ReadOnlySpan<byte> key, ArrayBufferWriter<byte> scratch, ref TEdit edit)
        where TEdit : IHashEdit, allows ref struct
    {
        RequireTurn();
        while (true)
        {
            var now = Now();
            var index = FindHash(key, now);
            var builder = new HashBuilder(scratch);
            if (!edit.Apply(new HashFields(index >= 0 ? _store.ValueAt(index) : default), ref builder))
            {
                return UpdateStatus.Ok;
            }

            var next = builder.Finish();
            if (next.IsEmpty)
            {
                if (index >= 0)
                {
                    RemoveEntry(index);
                }

                return UpdateStatus.Ok;
            }

            if (next.Length > _maxValueBytes)
            {
                return UpdateStatus.TooLarge;
            }

            var metadata = index >= 0 ? Touched(index, now) : EntryMetadata.Create(ExpirySpec.Never, 0, now) with { Kind = EntryKind.Hash };
            switch (Write(key, index, next, metadata, now))
            {
                case ChargeOutcome.Reclaimed:
                    continue;
                case ChargeOutcome.OutOfMemory:
                    return UpdateStatus.OutOfMemory;
            }

            return UpdateStatus.Ok;
        }
    }

    /// <summary>What a live entry holds, or null when the key is absent (TYPE).</summary>
    public EntryKind? KindOf(ReadOnlySpan<byte> key)
    {
        RequireTurn();
        var index = FindLive(key, Now());
        return index >= 0 ? _store.MetadataAt(index).Kind : null;
    }

    private int FindHash(ReadOnlySpan<byte> key, long now)
    {
        var index = FindLive(key, now);
        return index >= 0 && _store.MetadataAt(index).Kind != EntryKind.Hash ? throw new WrongTypeException() : index;
    }
}
