using Cubby.Sharding;
using Orleans.Runtime;

namespace Cubby.Silo.Transactions;

/// <summary>
/// Holds shards for work that must be atomic and isolated across them wherever they are: a chain of
/// <see cref="IShardGrain.Hold"/> calls takes them in ascending order under a new call chain id, and the work runs with
/// that id, the only one a held shard lets in. See docs/transactions.md.
/// </summary>
internal static class ShardHolds
{
    /// <summary>
    /// Runs <paramref name="work"/> while every one of <paramref name="slots"/> (ascending, distinct) is held. Work that
    /// already runs inside a call chain (a command of EXEC, whose holds cover its keys) runs at once in that chain.
    /// </summary>
    /// <exception cref="ShardsNotHeldException">The shards could not all be held; <paramref name="work"/> did not run.</exception>
    public static async ValueTask RunAsync(IGrainFactory grains, int[] slots, Func<ValueTask> work)
    {
        if (RequestContext.ReentrancyId != Guid.Empty)
        {
            await work().ConfigureAwait(false);
            return;
        }

        var callback = new HoldCallback();
        var reference = grains.CreateObjectReference<ITransactionCallback>(callback);
        RequestContext.ReentrancyId = Guid.NewGuid();
        try
        {
            var holding = grains.GetGrain<IShardGrain>(slots[0]).Hold(slots, 0, reference).AsTask();
            if (await Task.WhenAny(callback.AllHeld, holding).ConfigureAwait(false) != callback.AllHeld)
            {
                await holding.ConfigureAwait(false);
            }

            try
            {
                await work().ConfigureAwait(false);
            }
            finally
            {
                callback.Finish();
            }

            try
            {
                await holding.ConfigureAwait(false);
            }
            catch (Exception exception) when (ShardCallRetry.IsTransient(exception))
            {
                // The work ran and its reply is written; the chain's first call outlived its response timeout (work
                // waiting that long on a shard across a partition), so the holds may have lapsed before it ended
                // (docs/transactions.md). Nothing is left to undo here, and the connection goes on.
            }
        }
        catch (Exception exception) when (exception is not OutOfMemoryException && !callback.AllHeld.IsCompleted)
        {
            throw new ShardsNotHeldException(slots[0], exception);
        }
        finally
        {
            RequestContext.ReentrancyId = Guid.Empty;
            grains.DeleteObjectReference<ITransactionCallback>(reference);
        }
    }
}

/// <summary>The shards of a transaction or atomic command could not all be held (a silo unreachable, a call timed out).</summary>
internal sealed class ShardsNotHeldException(int firstSlot, Exception inner) : Exception(inner.Message, inner)
{
    /// <summary>The first shard of the chain, which the error names.</summary>
    public int FirstSlot { get; } = firstSlot;
}
