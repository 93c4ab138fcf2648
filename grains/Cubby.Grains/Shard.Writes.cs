using Cubby.Grains.Capacity;
using Cubby.Grains.Storage;
using Cubby.Sharding;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    /// <summary>
    /// Writes an entry if <see cref="SetRequest.Condition"/> holds. The previous live value, if any, is given to
    /// <paramref name="previous"/> before it is replaced (SET ... GET), whether or not the write then applies. When the
    /// budget is full, entries are evicted (from any shard) to make room; OutOfMemory only when nothing can make it fit.
    /// </summary>
    public SetStatus Set<TReader>(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, in SetRequest request, ref TReader previous)
        where TReader : IEntryReader, allows ref struct
    {
        RequireTurn();
        while (true)
        {
            var now = Now();
            var index = FindLive(key, now);
            if (index >= 0)
            {
                // SET ... GET reads the old value, which must be a string; a plain SET replaces any kind.
                if (typeof(TReader) != typeof(NoReader) && _store.MetadataAt(index).Kind != EntryKind.String)
                {
                    throw new WrongTypeException();
                }

                if (request.Condition == WriteCondition.IfAbsent)
                {
                    previous.Read(_store.ValueAt(index), _store.MetadataAt(index), now);
                    return SetStatus.NotStored;
                }

                var metadata = request.Expiry.KeepExisting
                    ? _store.MetadataAt(index) with { Flags = request.Flags, LastAccess = EntryMetadata.Clock(now), Kind = EntryKind.String }
                    : EntryMetadata.Create(request.Expiry, request.Flags, now);
                switch (Write(key, index, value, metadata, now, ref previous))
                {
                    case ChargeOutcome.Reclaimed:
                        continue;
                    case ChargeOutcome.OutOfMemory:
                        return SetStatus.OutOfMemory;
                }

                return SetStatus.Updated;
            }

            if (request.Condition == WriteCondition.IfPresent)
            {
                return SetStatus.NotStored;
            }

            switch (Write(key, index, value, EntryMetadata.Create(request.Expiry, request.Flags, now), now))
            {
                case ChargeOutcome.Reclaimed:
                    continue;
                case ChargeOutcome.OutOfMemory:
                    return SetStatus.OutOfMemory;
            }

            return SetStatus.Created;
        }
    }

    /// <summary>
    /// The one way every write stores a value: charges what it adds to the budget, then replaces the value at
    /// <paramref name="index"/> (a live entry) or adds the entry (-1), with <paramref name="metadata"/>. A live entry's
    /// old value goes to <paramref name="previous"/> first, even when nothing fits. On <see cref="ChargeOutcome.Reclaimed"/>
    /// nothing is written: eviction may have removed or moved the entry, so the caller looks it up again and retries.
    /// </summary>
    private ChargeOutcome Write<TReader>(ReadOnlySpan<byte> key, int index, ReadOnlySpan<byte> value, in EntryMetadata metadata, long now, ref TReader previous)
        where TReader : IEntryReader, allows ref struct
    {
        var charge = Charge(index >= 0 ? GrowthOf(index, value.Length) : _store.SizeOf(key.Length, value.Length));
        if (charge == ChargeOutcome.Reclaimed)
        {
            return charge;
        }

        if (index >= 0)
        {
            previous.Read(_store.ValueAt(index), _store.MetadataAt(index), now);
        }

        if (charge == ChargeOutcome.OutOfMemory)
        {
            return charge;
        }

        if (index >= 0)
        {
            _store.ReplaceValue(index, value);
            _store.SetMetadata(index, metadata);
        }
        else
        {
            index = _store.Add(key, value, metadata);
        }

        Changed(key, index);
        return ChargeOutcome.Charged;
    }

    /// <inheritdoc cref="Write{TReader}"/>
    private ChargeOutcome Write(ReadOnlySpan<byte> key, int index, ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
    {
        var none = default(NoReader);
        return Write(key, index, value, metadata, now, ref none);
    }

    /// <summary>The metadata of the entry at <paramref name="index"/>, marked as accessed now: a value edit keeps the rest.</summary>
    private EntryMetadata Touched(int index, long now) => _store.MetadataAt(index) with { LastAccess = EntryMetadata.Clock(now) };

    public bool Remove(ReadOnlySpan<byte> key)
    {
        var none = default(NoReader);
        return ReadAndRemove(key, ref none);
    }

    /// <summary>Reads and removes an entry in one turn (GETDEL, which reads strings only; DEL removes any kind).</summary>
    public bool ReadAndRemove<TReader>(ReadOnlySpan<byte> key, ref TReader reader)
        where TReader : IEntryReader, allows ref struct
    {
        RequireTurn();
        var now = Now();
        var index = typeof(TReader) == typeof(NoReader) ? FindLive(key, now) : FindString(key, now);
        if (index < 0)
        {
            return false;
        }

        reader.Read(_store.ValueAt(index), _store.MetadataAt(index), now);
        RemoveEntry(index);
        return true;
    }

    /// <summary>
    /// Reads an entry and then replaces its expiry (GETEX): <paramref name="expiresAt"/> &gt; 0 sets an absolute expiry,
    /// 0 removes any expiry, and null leaves it (renewing a sliding one). An expiry already past removes the entry.
    /// </summary>
    public bool ReadAndChangeExpiry<TReader>(ReadOnlySpan<byte> key, long? expiresAt, ref TReader reader)
        where TReader : IEntryReader, allows ref struct
    {
        RequireTurn();
        var now = Now();
        var index = FindString(key, now);
        if (index < 0)
        {
            return false;
        }

        ref var metadata = ref Touch(index, now, slide: expiresAt is null);
        reader.Read(_store.ValueAt(index), metadata, now);
        if (expiresAt is { } at)
        {
            if (at != 0 && at <= now)
            {
                RemoveEntry(index);
            }
            else
            {
                _store.SetExpiry(index, at);
                Changed(key);
            }
        }

        return true;
    }

    /// <summary>
    /// Sets an absolute expiry if <paramref name="condition"/> holds, as Redis's EXPIRE family does: an entry without
    /// expiry counts as living forever for GT and LT, and an expiry at or before now removes the entry.
    /// </summary>
    /// <returns>True when the expiry was applied (or the entry removed); false when absent or the condition failed.</returns>
    public bool Expire(ReadOnlySpan<byte> key, long expiresAt, ExpireCondition condition)
    {
        RequireTurn();
        var now = Now();
        var index = FindLive(key, now);
        if (index < 0)
        {
            return false;
        }

        ref readonly var metadata = ref _store.MetadataAt(index);
        var current = metadata.HasExpiry ? metadata.ExpiresAt : long.MaxValue;
        var applies = condition switch
        {
            ExpireCondition.IfNoExpiry => !metadata.HasExpiry,
            ExpireCondition.IfHasExpiry => metadata.HasExpiry,
            ExpireCondition.IfGreater => metadata.HasExpiry && expiresAt > current,
            ExpireCondition.IfLess => expiresAt < current,
            ExpireCondition.IfLessWithExpiry => metadata.HasExpiry && expiresAt < current,
            _ => true,
        };
        if (!applies)
        {
            return false;
        }

        if (expiresAt <= now)
        {
            RemoveEntry(index);
        }
        else
        {
            _store.SetExpiry(index, expiresAt);
            Changed(key);
        }

        return true;
    }

    /// <summary>Removes an entry's expiry; true when it had one.</summary>
    public bool Persist(ReadOnlySpan<byte> key)
    {
        RequireTurn();
        var index = FindLive(key, Now());
        if (index < 0 || !_store.MetadataAt(index).HasExpiry)
        {
            return false;
        }

        _store.SetExpiry(index, 0);
        Changed(key);
        return true;
    }
}
