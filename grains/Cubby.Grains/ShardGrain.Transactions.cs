using Cubby.Diagnostics;
using Cubby.Grains.Replication;
using Cubby.Sharding;
using Microsoft.Extensions.Logging;
using Orleans.Runtime;

namespace Cubby.Grains;

internal sealed partial class ShardGrain
{
    private static readonly TimeSpan OutcomeRetryDelay = TimeSpan.FromMilliseconds(250);

    /// <summary>
    /// How long a shard resumed from a replica holding a transaction's changes asks for the outcome: it asks while it
    /// activates, and Orleans cancels an activation that takes longer than its activation timeout (30 s), dropping the
    /// entries the replica gave it. Past this the changes are put back, as a shard whose chain broke does after
    /// <see cref="TransactionOutcome.AskedFor"/>.
    /// </summary>
    private static readonly TimeSpan InheritedOutcomeAskedFor = TimeSpan.FromSeconds(10);

    public async ValueTask<HoldEnd> Hold(int[] slots, byte[][][]? keys, int depth, ITransactionCallback callback)
    {
        ArgumentNullException.ThrowIfNull(slots);
        ArgumentNullException.ThrowIfNull(callback);
        if (depth < 0 || depth >= slots.Length || slots[depth] != Id)
        {
            throw new ArgumentException($"Shard {Id} is not at position {depth} of the transaction's shards.", nameof(depth));
        }

        if (keys is not null && keys.Length != slots.Length)
        {
            throw new ArgumentException($"{keys.Length} key lists for {slots.Length} shards.", nameof(keys));
        }

        var chain = RequestContext.ReentrancyId;
        if (chain == Guid.Empty)
        {
            throw new InvalidOperationException("A transaction's hold needs the caller's call chain (RequestContext.ReentrancyId).");
        }

        var shard = Entries;
        if (shard.Refuses(chain))
        {
            // The last shard, asked for the outcome before this hold arrived, rolled the transaction back.
            return HoldEnd.RolledBack;
        }

        // Lets the transaction's own calls (same chain) into this grain while this call waits; Orleans queues all others.
        using var reentrancy = RequestContext.AllowCallChainReentrancy();
        shard.Hold(chain);
        TransactionEnd? ended = null;
        HoldEnd end;
        try
        {
            if (keys?[depth] is { } mine)
            {
                CheckKeys(mine);
            }

            var undo = keys?[depth] is { Length: > 0 } held ? TransactionUndo.Capture(shard, held) : null;
            if (undo is not null)
            {
                shard.Describe(undo.Describe(chain, slots));
            }

            end = await HoldRestAsync(slots, keys, depth, callback).ConfigureAwait(true);
            ended = new TransactionEnd(chain, (end & HoldEnd.Committed) != 0);
            if (ended.Kept)
            {
                undo?.Keep(shard);
            }
            else
            {
                undo?.Restore(shard);
            }
        }
        finally
        {
            shard.Release(ended, decided: depth == slots.Length - 1);
        }

        // What the transaction left here, and how it ended, is on the replicas before anyone learns the outcome from this
        // shard (the chain as it unwinds, or a shard that asks): a replica that takes over knows it too.
        await shard.WhenSettledAsync(wrote: true).ConfigureAwait(true);
        shard.Learned(chain, ended.Kept);
        return end;
    }

    /// <summary>
    /// Holds the shards after this one, or, on the last, calls back the silo running the transaction and decides: what
    /// it answered, or a rollback when no answer came (a partition, a response timeout, that silo gone). A shard whose
    /// call to the next fails asks the last one, which decides, how it ended.
    /// </summary>
    private async Task<HoldEnd> HoldRestAsync(int[] slots, byte[][][]? keys, int depth, ITransactionCallback callback)
    {
        var decides = depth == slots.Length - 1;
        try
        {
            return decides
                ? await callback.Held().ConfigureAwait(true) ? HoldEnd.Committed : HoldEnd.RolledBack
                : await GrainFactory.GetGrain<IShardGrain>(slots[depth + 1]).Hold(slots, keys, depth + 1, callback).ConfigureAwait(true);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            if (decides)
            {
                LogUnanswered(logger, exception, Id);
                return HoldEnd.Broken | HoldEnd.RolledBack;
            }

            LogChainBroken(logger, exception, Id);
            return HoldEnd.Broken | (await OutcomeAsync(RequestContext.ReentrancyId, slots, TransactionOutcome.AskedFor).ConfigureAwait(true) ? HoldEnd.Committed : HoldEnd.RolledBack);
        }
    }

    public ValueTask<bool?> Outcome(Guid chain) => ValueTask.FromResult(_shard?.OutcomeOf(chain));

    public async ValueTask<bool?> Decision(Guid chain)
    {
        var shard = Entries;
        var decision = shard.Decide(chain, out var presumed);
        if (presumed)
        {
            await shard.WhenSettledAsync(wrote: true).ConfigureAwait(true);
            shard.Learned(chain, kept: false);
        }

        return decision;
    }

    /// <summary>
    /// Asks the transaction's last shard its decision (<see cref="Decision"/>), and its other shards, which may have
    /// learned it from the chain: until one answers, or <paramref name="askedFor"/> passes; then it is rolled back here.
    /// The last shard decides within its call back's response timeout, at once when it never held the transaction,
    /// and, if its silo died, as the replica that resumes it; so only a last shard that stays out of reach leaves the
    /// wait to run out.
    /// </summary>
    private async Task<bool> OutcomeAsync(Guid chain, int[] slots, TimeSpan askedFor)
    {
        var asking = TimeProvider.System.GetTimestamp();
        var decider = GrainFactory.GetGrain<IShardGrain>(slots[^1]);
        while (true)
        {
            if (await AskAsync(() => decider.Decision(chain)).ConfigureAwait(true) is { } decided)
            {
                return decided;
            }

            for (var i = slots.Length - 2; i >= 0; i--)
            {
                if (slots[i] != Id && await AskAsync(() => GrainFactory.GetGrain<IShardGrain>(slots[i]).Outcome(chain)).ConfigureAwait(true) is { } learned)
                {
                    return learned;
                }
            }

            if (TimeProvider.System.GetElapsedTime(asking) >= askedFor)
            {
                LogOutcomeUnknown(logger, Id, askedFor);
                return false;
            }

            await Task.Delay(OutcomeRetryDelay).ConfigureAwait(true);
        }
    }

    private static async Task<bool?> AskAsync(Func<ValueTask<bool?>> ask)
    {
        try
        {
            return await ask().AsTask().WaitAsync(OutcomeRetryDelay * 4).ConfigureAwait(true);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            return null;
        }
    }

    /// <summary>
    /// Keeps or puts back what a transaction did to <paramref name="shard"/>, just promoted from a replica that applied
    /// the transaction's changes before its primary died, as the transaction's outcome says. The last shard of the
    /// transaction decides, and answers only once its decision is on its replicas: one resumed from a replica that has
    /// no decision never answered anyone, so it rolls back. Any other asks (<see cref="OutcomeAsync"/>) for at most
    /// <see cref="InheritedOutcomeAskedFor"/>. The shard serves no one until then.
    /// </summary>
    private async Task SettleInheritedAsync(Shard shard, HeldTransaction held)
    {
        var kept = held.Slots[^1] != Id && await OutcomeAsync(held.Chain, held.Slots, InheritedOutcomeAskedFor).ConfigureAwait(true);
        if (!kept)
        {
            TransactionUndo.Restore(shard, held);
        }

        shard.PendingTransaction = null;
        shard.Learned(held.Chain, kept);
        LogInheritedTransaction(logger, Id, kept ? "kept" : "rolled back", held.Keys.Length);
    }

    public ValueTask<KeyWatch[]> Watch(byte[][] keys)
    {
        ArgumentNullException.ThrowIfNull(keys);
        var shard = Entries;
        using var turn = shard.TakeTurn();
        var watches = new KeyWatch[keys.Length];
        for (var i = 0; i < keys.Length; i++)
        {
            CheckKey(keys[i]);
            watches[i] = shard.Watch(keys[i]);
        }

        return ValueTask.FromResult(watches);
    }

    public ValueTask<bool> Unchanged(byte[][] keys, KeyWatch[] watches)
    {
        ArgumentNullException.ThrowIfNull(keys);
        ArgumentNullException.ThrowIfNull(watches);
        if (keys.Length != watches.Length)
        {
            throw new ArgumentException($"{keys.Length} keys but {watches.Length} watches.", nameof(watches));
        }

        var shard = Entries;
        using var turn = shard.TakeTurn();
        for (var i = 0; i < keys.Length; i++)
        {
            if (!shard.IsUnchanged(keys[i], watches[i]))
            {
                return ValueTask.FromResult(false);
            }
        }

        return ValueTask.FromResult(true);
    }

    public Task Unwatch(byte[][] keys)
    {
        ArgumentNullException.ThrowIfNull(keys);
        var shard = Entries;
        using var turn = shard.TakeTurn();
        foreach (var key in keys)
        {
            shard.Unwatch(key);
        }

        return Task.CompletedTask;
    }

    [LoggerMessage(EventId = LogEvents.TransactionChainBroken, Level = LogLevel.Information, Message = "Shard {Shard} lost its transaction's hold chain; it asks the transaction's last shard whether to keep what it ran")]
    private static partial void LogChainBroken(ILogger logger, Exception exception, int shard);

    [LoggerMessage(EventId = LogEvents.TransactionInherited, Level = LogLevel.Information, Message = "Shard {Shard} resumed from a replica holding a transaction's changes before its outcome; it learned the transaction was {Outcome} and settled its {Keys} keys accordingly")]
    private static partial void LogInheritedTransaction(ILogger logger, int shard, string outcome, int keys);

    [LoggerMessage(EventId = LogEvents.TransactionOutcomeUnknown, Level = LogLevel.Warning, Message = "Shard {Shard} could not learn its transaction's outcome from its other shards within {Wait}; it rolled its keys back")]
    private static partial void LogOutcomeUnknown(ILogger logger, int shard, TimeSpan wait);

    [LoggerMessage(EventId = LogEvents.TransactionUnanswered, Level = LogLevel.Information, Message = "Shard {Shard}, the last its transaction held, got no answer from the silo running it; it decided to roll the transaction back")]
    private static partial void LogUnanswered(ILogger logger, Exception exception, int shard);
}
