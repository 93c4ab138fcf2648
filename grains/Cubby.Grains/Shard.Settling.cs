using Cubby.Grains.Tracking;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    /// <summary>
    /// Whether a caller that ran in this shard's turn, and <paramref name="wrote"/> or not, must wait for
    /// <see cref="WhenSettledAsync"/> before answering: when the replicas have yet to acknowledge a change sealed so far
    /// (on a silo with nowhere to keep a copy, every change is acknowledged as it is sealed), or when the caller wrote
    /// and a near cache has yet to be told of a change.
    /// </summary>
    public bool MustSettle(bool wrote) =>
        (_replicator is { } replicator && replicator.Acknowledged < SealedSequence) || AwaitsDisk || (wrote && _untold is { IsEmpty: false });

    /// <summary>
    /// Completes once every change made so far has been applied by the replicas and, when the caller
    /// <paramref name="wrote"/>, taken by the near caches that had read a changed key (or their leases from before it ran
    /// out): a caller that ran in this shard's turn waits for it before answering, so what it answers (its own write, or
    /// one it read) survives its silo, and no near cache serves a value older than a write answered. A read need not
    /// wait for near caches: what it returns was not answered to its writer yet.
    /// </summary>
    /// <param name="wrote">Whether the caller changed the shard (or may have).</param>
    /// <param name="writer">
    /// The caller's own near cache: waited for like any other when it takes values with changes, so it holds the value it
    /// wrote once answered; otherwise not, as it drops what it kept once answered.
    /// </param>
    /// <exception cref="InvalidOperationException">The shard can no longer acknowledge writes (its replicas follow a newer primary).</exception>
    public ValueTask WhenSettledAsync(bool wrote, NearCacheLink? writer = null)
    {
        var replicated = WhenReplicatedAsync();
        if (!wrote || _untold is not { IsEmpty: false } untold)
        {
            return replicated;
        }

        var told = untold.WhenToldAsync(writer is { TakesUpdates: false } ? writer : null);
        return replicated.IsCompletedSuccessfully ? told : BothAsync(replicated, told);
    }

    private static async ValueTask BothAsync(ValueTask first, ValueTask second)
    {
        try
        {
            await first.ConfigureAwait(false);
        }
        finally
        {
            await second.ConfigureAwait(false);
        }
    }
}
