using System.Diagnostics;
using Cubby.Grains.Commands;
using Cubby.Sharding;
using Cubby.Silo.Commands;
using Orleans.Runtime;

namespace Cubby.Silo.Transactions;

/// <summary>
/// Holds shards for work that must be atomic and isolated across them wherever they are: a chain of
/// <see cref="IShardGrain.Hold"/> calls takes them in ascending order under a new call chain id, and the work runs with
/// that id, the only one a held shard lets in. The chain's last shard decides whether what the work did is kept: what
/// the work answered, or a rollback when the answer did not reach it in time; work that does not finish whole (a shard
/// it needed did not answer) answers a rollback. Each held shard then puts back the keys it was given. See
/// docs/transactions.md.
/// </summary>
internal static class ShardHolds
{
    /// <summary>How long the silo running the work asks the last shard for its decision when the chain's end does not come back.</summary>
    private static readonly TimeSpan OutcomeAskedFor = TimeSpan.FromSeconds(10);

    private static readonly TimeSpan OutcomeRetryDelay = TimeSpan.FromMilliseconds(250);

    /// <summary>
    /// Runs <paramref name="work"/> while every one of <paramref name="slots"/> (ascending, distinct) is held, and keeps
    /// what it did when it returns true and the last shard got that answer; otherwise, or when it throws, each shard puts
    /// back its keys of <paramref name="keys"/> (aligned with <paramref name="slots"/>; null: nothing can be put back,
    /// and what ran is kept). Work that already runs inside a call chain (a command of EXEC, whose holds cover its keys)
    /// runs at once in that chain, whose own work decides.
    /// </summary>
    /// <returns>Whether what the work did is kept.</returns>
    /// <exception cref="ShardsNotHeldException">The shards could not all be held; <paramref name="work"/> did not run.</exception>
    /// <exception cref="TransactionNotKeptException">The work asked to keep what it did, and it was not kept, or may not have been.</exception>
    public static async ValueTask<bool> RunAsync(IGrainFactory grains, int[] slots, byte[][][]? keys, Func<ValueTask<bool>> work)
    {
        if (RequestContext.ReentrancyId != Guid.Empty)
        {
            return await work().ConfigureAwait(false);
        }

        var callback = new HoldCallback();
        var reference = grains.CreateObjectReference<ITransactionCallback>(callback);
        var chain = Guid.NewGuid();
        RequestContext.ReentrancyId = chain;
        try
        {
            var holding = grains.GetGrain<IShardGrain>(slots[0]).Hold(slots, keys, 0, reference).AsTask();
            await Task.WhenAny(callback.AllHeld, holding).ConfigureAwait(false);
            if (holding.IsCompleted)
            {
                // The chain ended (broke, or its last shard refused a hold it had already rolled back) before every shard
                // was held, or let go while the callback was on its way: the work must not run on shards no longer held.
                var end = await holding.ConfigureAwait(false);
                throw new ShardsNotHeldException(slots[0], new TimeoutException($"the shards' hold chain ended ({end}) before the commands could run"));
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

            var kept = await KeptAsync(grains, holding, slots[^1], chain).ConfigureAwait(false);
            if (!keep || keys is null || kept == true)
            {
                return keep;
            }

            throw new TransactionNotKeptException(kept is null
                ? SiloErrors.TransactionOutcomeUnknown($"shard {slots[^1]}, which decides, did not answer within {OutcomeAskedFor.TotalSeconds:0} s")
                : SiloErrors.TransactionRolledBack($"shard {slots[^1]}, which decides, did not get the answer to keep it in time"));
        }
        catch (ShardsNotHeldException)
        {
            throw;
        }
        catch (Exception exception) when (exception is not OutOfMemoryException && !callback.AllHeld.IsCompleted)
        {
            throw new ShardsNotHeldException(slots[0], exception);
        }
        finally
        {
            // Shards held before the chain broke learn from the last one: never run, the work is not kept.
            callback.Decide(false);
            RequestContext.ReentrancyId = Guid.Empty;
            grains.DeleteObjectReference<ITransactionCallback>(reference);
        }
    }

    /// <summary>
    /// Whether the last shard kept what ran, as the chain's end says, or, when the chain's first call failed (its
    /// response timeout passed while the work ran, a partition), as that shard answers when asked; null when it did not
    /// answer within <see cref="OutcomeAskedFor"/>.
    /// </summary>
    private static async Task<bool?> KeptAsync(IGrainFactory grains, Task<HoldEnd> holding, int decider, Guid chain)
    {
        try
        {
            return (await holding.ConfigureAwait(false) & HoldEnd.Committed) != 0;
        }
        catch (Exception exception) when (ShardCallRetry.IsTransient(exception))
        {
        }

        var asking = Stopwatch.GetTimestamp();
        while (true)
        {
            try
            {
                if (await grains.GetGrain<IShardGrain>(decider).Decision(chain).AsTask().WaitAsync(OutcomeRetryDelay * 4).ConfigureAwait(false) is { } kept)
                {
                    return kept;
                }
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                // Asked again below: the shard may be resuming elsewhere.
            }

            if (Stopwatch.GetElapsedTime(asking) >= OutcomeAskedFor)
            {
                return null;
            }

            await Task.Delay(OutcomeRetryDelay).ConfigureAwait(false);
        }
    }
}

/// <summary>The shards of a transaction or atomic command could not all be held (a silo unreachable, a call timed out).</summary>
internal sealed class ShardsNotHeldException(int firstSlot, Exception inner) : Exception(inner.Message, inner)
{
    /// <summary>The first shard of the chain, which the error names.</summary>
    public int FirstSlot { get; } = firstSlot;
}

/// <summary>Work asked to keep what it did on held shards, and the last shard did not keep it, or may not have.</summary>
internal sealed class TransactionNotKeptException(string error) : Exception(error)
{
    /// <summary>The error to answer the client with.</summary>
    public string Error { get; } = error;
}
