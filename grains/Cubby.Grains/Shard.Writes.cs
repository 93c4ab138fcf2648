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
        lock (_turn)
        {
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

                    var charge = Charge(GrowthOf(index, value.Length));
                    if (charge == ChargeOutcome.Evicted)
                    {
                        continue;
                    }

                    ref var current = ref _store.MetadataAt(index);
                    previous.Read(_store.ValueAt(index), current, now);
                    if (charge == ChargeOutcome.OutOfMemory)
                    {
                        return SetStatus.OutOfMemory;
                    }

                    var replaced = request.Expiry.KeepExisting
                        ? current with { Flags = request.Flags, LastAccess = EntryMetadata.Clock(now), Kind = EntryKind.String }
                        : EntryMetadata.Create(request.Expiry, request.Flags, now);
                    _store.ReplaceValue(index, value);
                    _store.MetadataAt(index) = replaced;
                    _watches.Changed(key);
                    return SetStatus.Updated;
                }

                if (request.Condition == WriteCondition.IfPresent)
                {
                    return SetStatus.NotStored;
                }

                switch (Charge(_store.SizeOf(key.Length, value.Length)))
                {
                    case ChargeOutcome.Evicted:
                        continue;
                    case ChargeOutcome.OutOfMemory:
                        return SetStatus.OutOfMemory;
                }

                _store.Add(key, value, EntryMetadata.Create(request.Expiry, request.Flags, now));
                _watches.Changed(key);
                return SetStatus.Created;
            }
        }
    }

    public bool Remove(ReadOnlySpan<byte> key)
    {
        var none = default(NoReader);
        return ReadAndRemove(key, ref none);
    }

    /// <summary>Reads and removes an entry in one turn (GETDEL, which reads strings only; DEL removes any kind).</summary>
    public bool ReadAndRemove<TReader>(ReadOnlySpan<byte> key, ref TReader reader)
        where TReader : IEntryReader, allows ref struct
    {
        lock (_turn)
        {
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
    }

    /// <summary>
    /// Reads an entry and then replaces its expiry (GETEX): <paramref name="expiresAt"/> &gt; 0 sets an absolute expiry,
    /// 0 removes any expiry, and null leaves it (renewing a sliding one). An expiry already past removes the entry.
    /// </summary>
    public bool ReadAndChangeExpiry<TReader>(ReadOnlySpan<byte> key, long? expiresAt, ref TReader reader)
        where TReader : IEntryReader, allows ref struct
    {
        lock (_turn)
        {
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
                    metadata.SetAbsolute(at);
                    _watches.Changed(key);
                }
            }

            return true;
        }
    }

    /// <summary>
    /// Sets an absolute expiry if <paramref name="condition"/> holds, as Redis's EXPIRE family does: an entry without
    /// expiry counts as living forever for GT and LT, and an expiry at or before now removes the entry.
    /// </summary>
    /// <returns>True when the expiry was applied (or the entry removed); false when absent or the condition failed.</returns>
    public bool Expire(ReadOnlySpan<byte> key, long expiresAt, ExpireCondition condition)
    {
        lock (_turn)
        {
            var now = Now();
            var index = FindLive(key, now);
            if (index < 0)
            {
                return false;
            }

            ref var metadata = ref _store.MetadataAt(index);
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
                metadata.SetAbsolute(expiresAt);
                _watches.Changed(key);
            }

            return true;
        }
    }

    /// <summary>Removes an entry's expiry; true when it had one.</summary>
    public bool Persist(ReadOnlySpan<byte> key)
    {
        lock (_turn)
        {
            var index = FindLive(key, Now());
            if (index < 0 || !_store.MetadataAt(index).HasExpiry)
            {
                return false;
            }

            _store.MetadataAt(index).SetAbsolute(0);
            _watches.Changed(key);
            return true;
        }
    }
}
