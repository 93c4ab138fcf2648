using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using Cubby.Client.Shards;
using Cubby.Sharding;

namespace Cubby.Client.NearCaching;

/// <summary>
/// Reads through the near cache: a servable kept entry is answered here; otherwise the read goes as a tracked read in
/// a batch to the silo that holds the key's shard, and its answer is kept when nothing invalidated it on the way. A
/// read that cannot go so (no batch for the shard yet, or its silo could not run it) is a plain read, answered and not
/// kept. Concurrent misses of one key share one read. Hits on a sliding entry renew it on the silo, at most once per
/// quarter of its window.
/// </summary>
internal sealed class NearCacheReads(NearCache cache, LeaseRenewals renewals, ShardCalls shards) : IDisposable
{
    private readonly ConcurrentDictionary<string, Fill> _fills = new();

    public NearCache Cache => cache;

    /// <summary>The kept entry of <paramref name="key"/> when it may be served, renewing a sliding one on the silo when due.</summary>
    public bool TryGet(string key, out NearCacheEntry entry)
    {
        if (!cache.TryGet(key, out entry))
        {
            return false;
        }

        if (entry is { SlidingWindow: > 0, FixedExpiry: false } && cache.Clock.Approximately - entry.RenewedAt >= entry.SlidingWindow / 4 && entry.TryStartRenewal())
        {
            _ = RenewAsync(key, entry);
        }

        return true;
    }

    /// <summary>
    /// Reads <paramref name="key"/> from its shard, keeping the answer when the read was tracked and nothing invalidated
    /// it. Callers that miss the same key while its read is on the way share that read, as long as nothing invalidated
    /// the key since it was sent; each caller's token stops its own wait only.
    /// </summary>
    public ValueTask<NearRead?> ReadAsync(string key, byte[] bytes, int slot, CancellationToken cancellationToken)
    {
        var batcher = shards.Batches?.For(slot);
        if (batcher is null)
        {
            return PlainReadAsync(key, bytes, slot, cancellationToken);
        }

        var link = cache.LinkTo(batcher.Gateway);
        if (link.ValidUntil == 0)
        {
            renewals.Renew(link);
        }

        if (!_fills.TryGetValue(key, out var fill) || !fill.Joinable || !cache.Unspoiled(fill.Ticket, slot))
        {
            fill = new Fill(cache.BeginFill(key, slot, link));
            _fills[key] = fill;
            _ = FillAsync(fill, key, bytes, slot, batcher);
        }

        return new ValueTask<NearRead?>(cancellationToken.CanBeCanceled ? fill.Result.Task.WaitAsync(cancellationToken) : fill.Result.Task);
    }

    /// <summary>
    /// Whether this client's own writes reach its cache before they are answered, with their values (strict, taking
    /// values with changes), so it need not drop what it wrote.
    /// </summary>
    public bool KeepsOwnWrites { get; } = cache.Terms is { ChangesWait: true, UpdatesUpTo: > 0 };

    /// <summary>Drops <paramref name="key"/> after this client changed it, so it reads its own writes.</summary>
    public void Drop(string key) => cache.Drop(key);

    /// <summary>Stops serving and tells the silos, so that writes do not wait for this client as it closes.</summary>
    public Task ReleaseAsync() => renewals.ReleaseAsync();

    public void Dispose()
    {
        renewals.Dispose();
        cache.Dispose();
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<NearRead?> PlainReadAsync(string key, byte[] bytes, int slot, CancellationToken cancellationToken)
    {
        var plain = await shards.CallAsync(null, ShardOperation.Get(slot, bytes, slide: true), static result => result.Entry, static (grain, s) => grain.Get(s.Key, s.Slide), key, cancellationToken)
            .ConfigureAwait(false);
        return plain is null ? null : NearRead.Of(key, plain, cache.Clock);
    }

    /// <summary>The tracked read of a fill, for every caller waiting on it; it runs to its end whoever stops waiting.</summary>
    private async Task FillAsync(Fill fill, string key, byte[] bytes, int slot, GatewayBatcher batcher)
    {
        try
        {
            var (entry, tracked) = await shards.CallAsync(
                batcher,
                ShardOperation.TrackedGet(slot, bytes, slide: true),
                static result => (result.Entry, true),
                fill.ReadUntrackedAsync,
                key,
                CancellationToken.None).ConfigureAwait(false);
            NearRead? read = null;
            if (entry is not null)
            {
                var value = CubbyClient.ValueOf(key, entry);
                read = tracked && cache.CompleteFill(key, slot, fill.Ticket, entry, value) is { } kept ? NearRead.Of(kept) : NearRead.Of(key, entry, cache.Clock, value);
            }

            _fills.TryRemove(KeyValuePair.Create(key, fill));
            fill.Result.SetResult(read);
        }
        catch (Exception exception)
        {
            _fills.TryRemove(KeyValuePair.Create(key, fill));
            fill.Result.SetException(exception);
        }
    }

    private async Task RenewAsync(string key, NearCacheEntry entry)
    {
        var sentAt = cache.Clock.Now;
        try
        {
            var found = await shards.CallAsync(
                ShardOperation.Refresh(entry.Slot, System.Text.Encoding.UTF8.GetBytes(key)),
                static result => result.Found,
                static (grain, s) => grain.Refresh(s.Key),
                key,
                CancellationToken.None).ConfigureAwait(false);
            if (found)
            {
                entry.Renewed(sentAt);
            }
            else
            {
                entry.RenewalFailed();
                cache.Drop(key);
            }
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            // Tried again on a later hit; the entry expires here when the silo's copy would.
            entry.RenewalFailed();
        }
    }

    /// <summary>A tracked read on its way, and the callers' shared answer.</summary>
    private sealed class Fill(FillTicket ticket)
    {
        private volatile bool _joinable = true;

        public FillTicket Ticket { get; } = ticket;

        public TaskCompletionSource<NearRead?> Result { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        /// <summary>
        /// Whether a caller that misses the key now may share this read: not once it went as an untracked read, as
        /// nothing would then tell this client of a write that lands after that read and is answered before the caller
        /// began, and the caller would be answered with the value from before it.
        /// </summary>
        public bool Joinable => _joinable;

        /// <summary>The read as a single grain call, its batch not having run it: untracked, so no caller joins it any more.</summary>
        public async ValueTask<(ShardEntry? Entry, bool Tracked)> ReadUntrackedAsync(IShardGrain grain, ShardOperation operation)
        {
            _joinable = false;
            return (await grain.Get(operation.Key, operation.Slide).ConfigureAwait(false), false);
        }
    }
}
