namespace Cubby.Grains.Commands;

/// <summary>
/// Warms the memory that the key lookups of commands which arrived together will read, one level at a time across
/// all of them: the keys' shards, then their locks and stores, then their table buckets, then their entries. Each
/// level's addresses come from the level loaded before, so a window of commands waits about once per level instead of
/// once per level and command. Over more keys than the caches hold, these misses were most of what a pipelined GET
/// cost the silo (docs/pipelined-lookups.md).
/// </summary>
internal sealed class LookupPrefetcher(ShardCatalog catalog)
{
    /// <summary>
    /// Commands warmed at once. Each asks for two lines per level; a window of 16 asked for more than the processor
    /// tracks at once, and stalled on its own prefetches (8 cost less per GET than 16).
    /// </summary>
    public const int Window = 8;

    private readonly Shard[] _shards = new Shard[Window];
    private readonly Range[] _keys = new Range[Window];
    private int _count;

    /// <summary>Adds the key at <paramref name="where"/> in the block later given to <see cref="Run"/>, and starts loading its shard.</summary>
    public void Add(ReadOnlySpan<byte> key, Range where)
    {
        if (_count == Window || catalog.Find(catalog.ShardMap.SlotOf(key)) is not { } shard)
        {
            return;
        }

        shard.PrefetchFields();
        _shards[_count] = shard;
        _keys[_count++] = where;
    }

    /// <summary>Loads the remaining levels for every key added, whose bytes lie in <paramref name="block"/>, and empties the window.</summary>
    public void Run(ReadOnlySpan<byte> block)
    {
        var shards = _shards.AsSpan(0, _count);
        foreach (var shard in shards)
        {
            shard.PrefetchTurn();
        }

        Span<uint> hashes = stackalloc uint[Window];
        for (var i = 0; i < shards.Length; i++)
        {
            hashes[i] = shards[i].PrefetchBucket(block[_keys[i]]);
        }

        for (var i = 0; i < shards.Length; i++)
        {
            shards[i].PrefetchEntry(hashes[i]);
        }

        shards.Clear();
        _count = 0;
    }
}
