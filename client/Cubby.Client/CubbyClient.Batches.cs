using Cubby.Sharding;

namespace Cubby.Client;

internal sealed partial class CubbyClient
{
    public async ValueTask<byte[]?[]> GetManyAsync(IReadOnlyList<string> keys, CancellationToken cancellationToken = default)
    {
        var batch = Group(keys);
        var values = new byte[]?[keys.Count];
        if (_near is not null)
        {
            await Task.WhenAll(Enumerable.Range(0, keys.Count).Select(async index => values[index] = await GetAsync(keys[index], cancellationToken).ConfigureAwait(false))).ConfigureAwait(false);
            return values;
        }

        if (_shards.Batches is not null)
        {
            // Each key an operation of its own: the client coalesces them per silo, whatever their shards.
            await Task.WhenAll(Enumerable.Range(0, keys.Count).Select(async index =>
            {
                var entry = await _shards.CallAsync(
                    ShardOperation.Get(batch.Slots[index], batch.Encoded[index], slide: true),
                    static result => result.Entry,
                    static (grain, s) => grain.Get(s.Key, s.Slide),
                    keys[index],
                    cancellationToken).ConfigureAwait(false);
                values[index] = entry is null ? null : await UntaggedAsync(keys[index], ValueOf(keys[index], entry), entry.Flags, null, cancellationToken).ConfigureAwait(false);
            })).ConfigureAwait(false);
            return values;
        }

        await Task.WhenAll(batch.Shards.Select(async shard =>
        {
            var entries = await _shards.CallAsync(shard.Slot, batch.KeysOf(shard), static (grain, k) => grain.GetMany(k, slide: true), keys[shard.Indexes[0]], cancellationToken).ConfigureAwait(false);
            for (var i = 0; i < entries.Length; i++)
            {
                var index = shard.Indexes[i];
                values[index] = entries[i] is { } entry ? await UntaggedAsync(keys[index], ValueOf(keys[index], entry), entry.Flags, null, cancellationToken).ConfigureAwait(false) : null;
            }
        })).ConfigureAwait(false);
        return values;
    }

    public async ValueTask<WriteOutcome[]> PutManyAsync(IReadOnlyList<KeyValuePair<string, ReadOnlyMemory<byte>>> entries, CacheEntryOptions? options = null, CancellationToken cancellationToken = default)
    {
        var written = false;
        try
        {
            var outcomes = await WriteManyAsync(entries, options, cancellationToken).ConfigureAwait(false);
            written = true;
            return outcomes;
        }
        finally
        {
            // As for one write (DroppingAsync): a near cache that kept its own writes holds what it wrote.
            if (!written || _near is { KeepsOwnWrites: false })
            {
                DropAll(entries?.Select(static entry => entry.Key));
            }
        }
    }

    public async ValueTask<int> EvictManyAsync(IReadOnlyList<string> keys, CancellationToken cancellationToken = default)
    {
        try
        {
            return await RemoveManyAsync(keys, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            DropAll(keys);
        }
    }

    /// <summary>Drops keys this client changed from its near cache, as <see cref="DroppingAsync"/> does for one.</summary>
    private void DropAll(IEnumerable<string?>? keys)
    {
        if (_near is not { } near || keys is null)
        {
            return;
        }

        foreach (var key in keys)
        {
            if (key is not null)
            {
                near.Drop(key);
            }
        }
    }

    private async ValueTask<WriteOutcome[]> WriteManyAsync(IReadOnlyList<KeyValuePair<string, ReadOnlyMemory<byte>>> entries, CacheEntryOptions? options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(entries);
        options ??= CacheEntryOptions.Never;
        var expiry = Expiry(options);
        var tags = TagsOf(options);
        var flags = tags is null ? options.Flags : options.Flags | CacheEntryFlags.Tagged;
        var header = tags is null ? null : await TagHeaderAsync(tags, cancellationToken).ConfigureAwait(false);
        var keys = new string[entries.Count];
        var values = new byte[entries.Count][];
        for (var i = 0; i < entries.Count; i++)
        {
            keys[i] = entries[i].Key;
            CheckValue(entries[i].Value.Length, nameof(entries));
            var value = header is null ? ValueArray(entries[i].Value) : Tagged(header, entries[i].Value.Span, nameof(entries));
            values[i] = (flags & CacheEntryFlags.Compressed) != 0 ? EntryCompression.Compress(value) : value;
        }

        var batch = Group(keys);
        var outcomes = new WriteOutcome[entries.Count];
        if (_shards.Batches is not null)
        {
            await Task.WhenAll(Enumerable.Range(0, keys.Length).Select(async index =>
                outcomes[index] = await _shards.CallAsync(
                    ShardOperation.Set(batch.Slots[index], batch.Encoded[index], values[index], expiry, flags, ShardWriteCondition.Always),
                    static result => result.Outcome,
                    static (grain, s) => grain.Set(s.Key, s.Value!, s.Expiry, s.Flags, s.Condition),
                    keys[index],
                    cancellationToken).ConfigureAwait(false))).ConfigureAwait(false);
            return outcomes;
        }

        await Task.WhenAll(batch.Shards.Select(async shard =>
        {
            var shardValues = shard.Indexes.Select(index => values[index]).ToArray();
            var written = await _shards.CallAsync(
                shard.Slot,
                (Keys: batch.KeysOf(shard), Values: shardValues, Expiry: expiry, Flags: flags),
                static (grain, s) => grain.SetMany(s.Keys, s.Values, s.Expiry, s.Flags),
                keys[shard.Indexes[0]],
                cancellationToken).ConfigureAwait(false);
            for (var i = 0; i < written.Length; i++)
            {
                outcomes[shard.Indexes[i]] = written[i];
            }
        })).ConfigureAwait(false);
        return outcomes;
    }

    private async ValueTask<int> RemoveManyAsync(IReadOnlyList<string> keys, CancellationToken cancellationToken)
    {
        var batch = Group(keys);
        if (_shards.Batches is not null)
        {
            var found = await Task.WhenAll(Enumerable.Range(0, keys.Count).Select(index => _shards.CallAsync(
                ShardOperation.Remove(batch.Slots[index], batch.Encoded[index]),
                static result => result.Found,
                static async (grain, s) => await grain.Remove([s.Key]).ConfigureAwait(false) > 0,
                keys[index],
                cancellationToken).AsTask())).ConfigureAwait(false);
            return found.Count(static removed => removed);
        }

        var removed = await Task.WhenAll(batch.Shards.Select(shard =>
            _shards.CallAsync(shard.Slot, batch.KeysOf(shard), static (grain, k) => grain.Remove(k), keys[shard.Indexes[0]], cancellationToken).AsTask())).ConfigureAwait(false);
        return removed.Sum();
    }

    /// <summary>Checks every key (before anything is sent) and groups them by shard, keeping each key's position in the caller's list.</summary>
    private KeyBatch Group(IReadOnlyList<string> keys)
    {
        ArgumentNullException.ThrowIfNull(keys);
        var encoded = new byte[keys.Count][];
        var slots = new int[keys.Count];
        var shards = new Dictionary<int, ShardKeys>();
        for (var i = 0; i < keys.Count; i++)
        {
            var (bytes, slot) = Key(keys[i]);
            encoded[i] = bytes;
            slots[i] = slot;
            if (!shards.TryGetValue(slot, out var shard))
            {
                shards.Add(slot, shard = new ShardKeys(slot, []));
            }

            shard.Indexes.Add(i);
        }

        return new KeyBatch(encoded, slots, shards.Values);
    }

    private sealed record ShardKeys(int Slot, List<int> Indexes);

    private sealed record KeyBatch(byte[][] Encoded, int[] Slots, IReadOnlyCollection<ShardKeys> Shards)
    {
        public byte[][] KeysOf(ShardKeys shard) => shard.Indexes.Select(index => Encoded[index]).ToArray();
    }
}
