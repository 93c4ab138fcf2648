namespace Cubby.Grains;

internal sealed partial class Shard
{
    /// <summary>Whether a caller that ran in this shard's turn must wait for <see cref="WhenSettledAsync"/> before answering.</summary>
    public bool Unsettled => Replicated || !_untold.IsEmpty;

    /// <summary>
    /// Completes once every change made so far has been applied by the replicas and taken by the near caches that had
    /// read its key (or their leases from before it ran out): a caller that ran in this shard's turn waits for it before
    /// answering, so what it answers (its own write, or one it read) survives its silo, and no near cache serves what
    /// it replaced.
    /// </summary>
    /// <exception cref="InvalidOperationException">The shard can no longer acknowledge writes (its replicas follow a newer primary).</exception>
    public ValueTask WhenSettledAsync()
    {
        var replicated = WhenReplicatedAsync();
        if (_untold.IsEmpty)
        {
            return replicated;
        }

        var told = _untold.WhenToldAsync();
        return replicated.IsCompletedSuccessfully ? told : BothAsync(replicated, told);

        static async ValueTask BothAsync(ValueTask replicated, ValueTask told)
        {
            try
            {
                await replicated.ConfigureAwait(false);
            }
            finally
            {
                await told.ConfigureAwait(false);
            }
        }
    }
}
