using System.Runtime.CompilerServices;
using Cubby.Client.Shards;
using Cubby.Sharding;

namespace Cubby.Client.NearCaching;

/// <summary>
/// Reads through the near cache: a servable kept entry is answered here; otherwise the read goes as a tracked read in
/// a batch to the silo that holds the key's shard, and its answer is kept when nothing invalidated it on the way. A
/// read that cannot go so (no batch for the shard yet, or its silo could not run it) is a plain read, answered and not
/// kept. Hits on a sliding entry renew it on the silo, at most once per quarter of its window.
/// </summary>
internal sealed class NearCacheReads(NearCache cache, LeaseRenewals renewals, ShardCalls shards) : IDisposable
{
    public NearCache Cache => cache;

    /// <summary>The kept entry of <paramref name="key"/> when it may be served, renewing a sliding one on the silo when due.</summary>
    public bool TryGet(string key, out NearCacheEntry entry)
    {
        if (!cache.TryGet(key, out entry))
        {
            return false;
        }

        if (entry is { SlidingWindow: > 0, FixedExpiry: false } && cache.Clock.NowMilliseconds - entry.RenewedAt >= entry.SlidingWindow / 4 && entry.TryStartRenewal())
        {
            _ = RenewAsync(key, entry);
        }

        return true;
    }

    /// <summary>Reads <paramref name="key"/> from its shard, keeping the answer when the read was tracked and nothing invalidated it.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<NearRead?> ReadAsync(string key, byte[] bytes, int slot, CancellationToken cancellationToken)
    {
        var batcher = shards.Batches?.For(slot);
        if (batcher is null)
        {
            var plain = await shards.CallAsync(null, ShardOperation.Get(slot, bytes, slide: true), static result => result.Entry, static (grain, s) => grain.Get(s.Key, s.Slide), key, cancellationToken)
                .ConfigureAwait(false);
            return plain is null ? null : NearRead.Of(key, plain, cache.Clock);
        }

        var link = cache.LinkTo(batcher.Gateway);
        if (link.ValidUntil == 0)
        {
            renewals.Renew(link);
        }

        var ticket = cache.BeginFill(key, slot, link);
        var (entry, tracked) = await shards.CallAsync(
            batcher,
            ShardOperation.TrackedGet(slot, bytes, slide: true),
            static result => (result.Entry, true),
            static async (grain, s) => (await grain.Get(s.Key, s.Slide).ConfigureAwait(false), false),
            key,
            cancellationToken).ConfigureAwait(false);
        if (entry is null)
        {
            return null;
        }

        var value = CubbyClient.ValueOf(key, entry);
        return tracked && cache.CompleteFill(key, slot, ticket, entry, value) is { } kept ? NearRead.Of(kept) : NearRead.Of(key, entry, cache.Clock, value);
    }

    /// <summary>Drops <paramref name="key"/> before and after this client changes it, so it reads its own writes.</summary>
    public void Drop(string key) => cache.Drop(key);

    public void Dispose()
    {
        renewals.Dispose();
        cache.Dispose();
    }

    private async Task RenewAsync(string key, NearCacheEntry entry)
    {
        var sentAt = cache.Clock.NowMilliseconds;
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
                entry.Renewed(sentAt, cache.Clock.Resolution);
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
}
