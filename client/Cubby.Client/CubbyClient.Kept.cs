using Cubby.Client.NearCaching;
using Cubby.Sharding;

namespace Cubby.Client;

/// <summary>What a layer over the client (<see cref="Hybrid.CubbyHybridCache"/>) needs beyond <see cref="ICubbyClient"/>.</summary>
internal sealed partial class CubbyClient
{
    /// <summary>Whether reads can be kept in this process (the near cache is on).</summary>
    internal bool Keeps => _near is not null;

    /// <summary>The near cache's servable entry of <paramref name="key"/>, without a call.</summary>
    internal bool TryGetKept(string key, out NearCacheEntry entry)
    {
        entry = null!;
        return _near is { } near && near.TryGet(key, out entry);
    }

    /// <summary>Whether an entry <see cref="TryGetKept"/> gave may still be served, without a lookup.</summary>
    internal bool IsServable(NearCacheEntry entry) => _near is { } near && near.Cache.IsServable(entry);

    /// <summary>The near cache's <see cref="NearCache.TagChanges"/>, or 0 without one.</summary>
    internal long TagChanges => _near?.Cache.TagChanges ?? 0;

    /// <summary>
    /// Whether no tag key, shard or link was dropped since <see cref="TagChanges"/> was <paramref name="changes"/>, and
    /// <paramref name="validUntil"/> (near cache clock) is still ahead.
    /// </summary>
    internal bool TagsUnchanged(long changes, long validUntil) =>
        _near is { } near && near.Cache.TagChanges == changes && near.Cache.Clock.Before(near.Cache.Clock.Approximately, validUntil);

    /// <summary>The near cache's clock, or one on <paramref name="fallback"/> when there is no near cache.</summary>
    internal NearCacheClock ClockOr(TimeProvider fallback) => _near?.Cache.Clock ?? new NearCacheClock(fallback);

    /// <summary>
    /// Where <paramref name="key"/>'s invalidations stand now, with a near cache; null without one (nothing here could
    /// be stale then).
    /// </summary>
    internal KeyMark? Mark(string key) => _near is { } near ? near.Cache.Mark(key, Key(key).Slot) : null;

    /// <summary>Whether nothing may have changed the key of <paramref name="mark"/> since it was taken.</summary>
    internal bool Unchanged(KeyMark? mark) => mark is not { } taken || _near!.Cache.Unchanged(taken);

    /// <summary>Drops what this process keeps of <paramref name="key"/>.</summary>
    internal void DropKept(string key) => _near?.Drop(key);

    /// <summary>
    /// Reads <paramref name="key"/> from its shard: with <paramref name="keep"/> and a near cache, as a tracked read the
    /// near cache keeps; otherwise as a plain read, kept nowhere.
    /// </summary>
    internal async ValueTask<byte[]?> ReadAsync(string key, bool keep, CancellationToken cancellationToken)
    {
        if (keep && _near is not null)
        {
            var (bytes, slot) = Key(key);
            return (await _near.ReadAsync(key, bytes, slot, cancellationToken).ConfigureAwait(false))?.Value;
        }

        var entry = await ReadAsync(key, cancellationToken).ConfigureAwait(false);
        return entry is null ? null : ValueOf(key, entry);
    }

    /// <summary>Stores <paramref name="value"/> only when <paramref name="key"/> has no entry (NX), never expiring.</summary>
    internal ValueTask<WriteOutcome> PutIfAbsentAsync(string key, byte[] value, CancellationToken cancellationToken)
    {
        var (bytes, slot) = Key(key);
        CheckValue(value.Length, nameof(value));
        return DroppingAsync(
            key,
            _shards.CallAsync(
                ShardOperation.Set(slot, bytes, _copyValues ? value.ToArray() : value, default, CacheEntryFlags.None, ShardWriteCondition.IfAbsent),
                static result => result.Outcome,
                static (grain, s) => grain.Set(s.Key, s.Value!, s.Expiry, s.Flags, s.Condition),
                key,
                cancellationToken));
    }

    /// <summary>Asks the key's shard for its entry, or for the lease to fill it (<see cref="IShardGrain.Fill"/>).</summary>
    internal async ValueTask<(FillStatus Status, byte[]? Value, CacheEntryFlags Flags)> FillAsync(string key, Guid owner, bool ignorePresent, CancellationToken cancellationToken)
    {
        var (bytes, slot) = Key(key);
        var answer = await _shards.CallAsync(
            slot,
            (Key: bytes, Owner: owner, Lease: (int)_options.FillLease.TotalMilliseconds, Ignore: ignorePresent),
            static (grain, s) => grain.Fill(s.Key, s.Owner, s.Lease, s.Ignore),
            key,
            cancellationToken).ConfigureAwait(false);
        return (answer.Status, answer.Entry is { } entry ? ValueOf(key, entry) : null, answer.Entry?.Flags ?? CacheEntryFlags.None);
    }

    /// <summary>Waits for another filler's lease on <paramref name="key"/> to end, at most half a try's timeout.</summary>
    internal ValueTask<bool> AwaitFillAsync(string key, CancellationToken cancellationToken)
    {
        var (bytes, slot) = Key(key);
        return _shards.CallAsync(
            slot, (Key: bytes, Wait: (int)(_options.AttemptTimeout.TotalMilliseconds / 2)), static (grain, s) => grain.AwaitFill(s.Key, s.Wait), key, cancellationToken);
    }

    /// <summary>Gives up the lease to fill <paramref name="key"/>, so a waiter fills it instead.</summary>
    internal async ValueTask GiveUpFillAsync(string key, Guid owner)
    {
        var (bytes, slot) = Key(key);
        await _shards.CallAsync(
            slot,
            (Key: bytes, Owner: owner),
            static async (grain, s) =>
            {
                await grain.GiveUpFill(s.Key, s.Owner).ConfigureAwait(false);
                return true;
            },
            key,
            CancellationToken.None).ConfigureAwait(false);
    }

    /// <summary>How long a fill lease lasts unless renewed (<see cref="CubbyClientOptions.FillLease"/>).</summary>
    internal TimeSpan FillLease => _options.FillLease;
}
