using System.Buffers;
using Cubby.Grains.Capacity;
using Cubby.Grains.Migration;
using Cubby.Grains.Storage;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    /// <summary>
    /// Writes the next migration chunk of this grain's live entries to <paramref name="output"/>: entries from
    /// <paramref name="cursor"/> on while the chunk stays within <paramref name="maxBytes"/>, but always at least one,
    /// however large. Expired entries are skipped and left in place.
    /// </summary>
    /// <param name="cursor">0 for the first chunk; then pass back what the previous call left (an opaque negative number).</param>
    /// <param name="maxBytes">The most bytes a chunk of more than one entry may take.</param>
    /// <param name="output">Receives one whole chunk, or nothing when the call returns false.</param>
    /// <returns>True when a chunk was written; false, writing nothing, when no live entry is left.</returns>
    /// <remarks>
    /// Each call takes the turn for its chunk only, so writes may run between calls (a replica's snapshot). The cursor
    /// walks the dense indexes downwards, so removals meanwhile can never make it skip an entry that stays: a removal
    /// moves the last entry, already written, into the hole, which at worst sends that entry twice (installing is
    /// idempotent); entries added meanwhile go after the cursor's start and are not written.
    /// </remarks>
    public bool WriteChunk(ref int cursor, int maxBytes, IBufferWriter<byte> output)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxBytes);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(cursor, 0);
        lock (_turn)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            var now = Now();
            var remaining = cursor == 0 ? _store.Count : Math.Min(-(cursor + 1), _store.Count);
            MigrationChunkWriter? chunk = null;
            for (; remaining > 0; remaining--)
            {
                var index = remaining - 1;
                ref var metadata = ref _store.MetadataAt(index);
                if (metadata.IsExpiredAt(now))
                {
                    continue;
                }

                var key = _store.KeyAt(index);
                var value = _store.ValueAt(index);
                if (chunk is null)
                {
                    chunk = new MigrationChunkWriter(output, Slot);
                }
                else if (chunk.BytesWritten + MigrationChunkWriter.MeasureEntry(key.Length, value.Length, metadata) + MigrationFormat.MaxTrailerBytes > maxBytes)
                {
                    break;
                }

                chunk.Append(key, value, metadata);
            }

            cursor = -(remaining + 1);
            chunk?.Complete();
            return chunk is not null;
        }
    }

    /// <summary>
    /// Installs a migration chunk of this grain's slot: each live entry is inserted, or overwrites the entry with its key,
    /// keeping its flags and absolute expiry state (so a sliding entry keeps its window and deadline). Each entry is
    /// charged to the memory budget as a write is, evicting to make room when the budget is full.
    /// </summary>
    /// <param name="chunk">A whole chunk written by <see cref="WriteChunk"/>.</param>
    /// <returns>
    /// The entries installed. Entries already expired when they arrive are dropped; so is an entry that still does not
    /// fit once eviction has done what it can (as a write would get OOM).
    /// </returns>
    /// <exception cref="InvalidDataException">
    /// The chunk is truncated, corrupt or of another slot. The whole chunk is checked before the first entry is
    /// installed, so a bad chunk installs nothing, not even the entries before the bad part.
    /// </exception>
    public int Install(ReadOnlySpan<byte> chunk)
    {
        lock (_turn)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
        }

        var reader = new MigrationChunkReader(chunk);
        if (reader.Slot != Slot)
        {
            throw new InvalidDataException($"Invalid migration chunk: it holds slot {reader.Slot}, not slot {Slot}.");
        }

        MigrationChunkReader.Validate(chunk);
        var installed = 0;
        while (reader.TryRead(out var entry))
        {
            lock (_turn)
            {
                // An entry arriving with its shard is no change: nobody listening for changes is told of it.
                _installing = true;
                try
                {
                    if (InstallEntry(entry, Now()))
                    {
                        installed++;
                    }
                }
                finally
                {
                    _installing = false;
                }
            }
        }

        return installed;
    }

    /// <summary>Whether this grain charges <paramref name="budget"/> (a catalog attaches only grains of its own budget).</summary>
    internal bool Charges(MemoryBudget budget) => ReferenceEquals(_budget, budget);

    private bool InstallEntry(in MigrationEntry entry, long now) =>
        !entry.Metadata.IsExpiredAt(now)
        && Put(entry.Key, entry.Value, entry.Metadata with { LastAccess = EntryMetadata.Clock(now) }, replace: true, now) is SetStatus.Created or SetStatus.Updated;
}
