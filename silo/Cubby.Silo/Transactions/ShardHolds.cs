using Cubby.Sharding;
using Orleans.Runtime;

namespace Cubby.Silo.Transactions;

/// <summary>
/// Holds shards for work that must be atomic and isolated across them wherever they are: a chain of
/// <see cref="IShardGrain.Hold"/> calls takes them in ascending order under a new call chain id, and the work runs with
/// that id, the only one a held shard lets in. Work that does not finish whole (a shard it needed did not answer) is
/// rolled back: each held shard puts back the keys it was given. See docs/transactions.md.
/// </summary>
internal static class ShardHolds
{
    /// <summary>
    /// Runs <paramref name="work"/> while every one of <paramref name="slots"/> (ascending, distinct) is held, and keeps
    /// what it did when it returns true; otherwise, or when it throws, each shard puts back its keys of
    /// <paramref name="keys"/> (aligned with <paramref name="slots"/>; null: nothing can be put back). Work that
    /// already runs inside a call chain (a command of EXEC, whose holds cover its keys) runs at once in that chain, whose
    /// own work decides.
    /// </summary>
    /// <returns>Whether what the work did is kept.</returns>
    /// <exception cref="ShardsNotHeldException">The shards could not all be held; <paramref name="work"/> did not run.</exception>
    public static async ValueTask<bool> RunAsync(IGrainFactory grains, int[] slots, byte[][][]? keys, Func<ValueTask<bool>> work)
    {
        if (RequestContext.ReentrancyId != Guid.Empty)
        {
            return await work().ConfigureAwait(false);
        }

        var callback = new HoldCallback();
        var reference = grains.CreateObjectReference<ITransactionCallback>(callback);
        var answerLater = true;
        RequestContext.ReentrancyId = Guid.NewGuid();
        try
        {
            var holding = grains.GetGrain<IShardGrain>(slots[0]).Hold(slots, keys, 0, reference).AsTask();
            if (await Task.WhenAny(callback.AllHeld, holding).ConfigureAwait(false) != callback.AllHeld)
            {
                await holding.ConfigureAwait(false);
            }

            var keep = false;
            try
            {
                keep = await work().ConfigureAwait(false);
            }
            finally
            {
                callback.Decide(keep);
            }

            try
            {
                answerLater = (await holding.ConfigureAwait(false) & HoldEnd.Broken) != 0;
            }
            catch (Exception exception) when (ShardCallRetry.IsTransient(exception))
            {
                // The chain's first call outlived its response timeout (work waiting that long on a shard across a
                // partition); each held shard still learns the outcome, from the chain or by asking.
            }

            return keep;
        }
        catch (Exception exception) when (exception is not OutOfMemoryException && !callback.AllHeld.IsCompleted)
        {
            throw new ShardsNotHeldException(slots[0], exception);
        }
        finally
        {
            // Shards held before the chain broke ask before they let go: never run, the work is not kept.
            callback.Decide(false);
            RequestContext.ReentrancyId = Guid.Empty;
            if (answerLater)
            {
                _ = AnswerThenForgetAsync(grains, reference, callback);
            }
            else
            {
                grains.DeleteObjectReference<ITransactionCallback>(reference);
            }
        }
    }

    /// <summary>Keeps answering shards that lost the chain, for twice as long as they ask (<see cref="TransactionOutcome.AskedFor"/>).</summary>
    private static async Task AnswerThenForgetAsync(IGrainFactory grains, ITransactionCallback reference, HoldCallback callback)
    {
        await Task.Delay(TransactionOutcome.AskedFor * 2).ConfigureAwait(false);
        grains.DeleteObjectReference<ITransactionCallback>(reference);
        GC.KeepAlive(callback);
    }
}

/// <summary>The shards of a transaction or atomic command could not all be held (a silo unreachable, a call timed out).</summary>
internal sealed class ShardsNotHeldException(int firstSlot, Exception inner) : Exception(inner.Message, inner)
{
    /// <summary>The first shard of the chain, which the error names.</summary>
    public int FirstSlot { get; } = firstSlot;
}
