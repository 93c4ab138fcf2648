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

    private readonly TransactionOutcomes _outcomes = new();

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

        // Lets the transaction's own calls (same chain) into this grain while this call waits; Orleans queues all others.
        using var reentrancy = RequestContext.AllowCallChainReentrancy();
        var shard = Entries;
        shard.Hold(chain);
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
                shard.Describe(undo.Describe(chain, slots, callback));
            }

            end = await HoldRestAsync(slots, keys, depth, callback).ConfigureAwait(true);
            _outcomes.Learned(chain, (end & HoldEnd.Committed) != 0);
            if ((end & HoldEnd.Committed) != 0)
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
            shard.Release();
        }

        // What the transaction left is on the replicas before the chain goes on unwinding, and so before EXEC answers.
        await shard.WhenSettledAsync(wrote: true).ConfigureAwait(true);
        return end;
    }

    /// <summary>
    /// Holds the shards after this one, or calls back the silo running the transaction; when that call fails (a shard or
    /// that silo across a partition, a response timeout), whether the transaction is kept is that silo's to say.
    /// </summary>
    private async Task<HoldEnd> HoldRestAsync(int[] slots, byte[][][]? keys, int depth, ITransactionCallback callback)
    {
        try
        {
            return depth + 1 < slots.Length
                ? await GrainFactory.GetGrain<IShardGrain>(slots[depth + 1]).Hold(slots, keys, depth + 1, callback).ConfigureAwait(true)
                : await callback.Held().ConfigureAwait(true) ? HoldEnd.Committed : HoldEnd.RolledBack;
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            LogChainBroken(logger, exception, Id);
            return HoldEnd.Broken | (await OutcomeAsync(RequestContext.ReentrancyId, slots, callback, TransactionOutcome.AskedFor).ConfigureAwait(true) ? HoldEnd.Committed : HoldEnd.RolledBack);
        }
    }

    public ValueTask<bool?> Outcome(Guid chain) => ValueTask.FromResult(_outcomes.Of(chain));

    /// <summary>
    /// Asks the silo running the transaction whether it is kept, and, when that silo cannot answer, the transaction's
    /// other shards, one of which may have learned it before that silo became unreachable (through the chain, or by
    /// asking): until one answers, that silo is known gone (Orleans has no such callback: its silo was declared dead
    /// or stopped), or <paramref name="askedFor"/> passes; then the transaction is rolled back here.
    /// </summary>
    private async Task<bool> OutcomeAsync(Guid chain, int[] slots, ITransactionCallback callback, TimeSpan askedFor)
    {
        var asking = TimeProvider.System.GetTimestamp();
        while (true)
        {
            Exception failure;
            try
            {
                var left = askedFor - TimeProvider.System.GetElapsedTime(asking);
                return await callback.Committed().WaitAsync(left > TimeSpan.Zero ? left : TimeSpan.Zero).ConfigureAwait(true);
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                failure = exception;
            }

            foreach (var slot in slots)
            {
                if (slot != Id && await PeerOutcomeAsync(slot, chain).ConfigureAwait(true) is { } learned)
                {
                    return learned;
                }
            }

            if (failure is ClientNotAvailableException || TimeProvider.System.GetElapsedTime(asking) >= askedFor)
            {
                LogOutcomeUnknown(logger, failure, Id, askedFor);
                return false;
            }

            await Task.Delay(OutcomeRetryDelay).ConfigureAwait(true);
        }
    }

    private async Task<bool?> PeerOutcomeAsync(int slot, Guid chain)
    {
        try
        {
            return await GrainFactory.GetGrain<IShardGrain>(slot).Outcome(chain).AsTask().WaitAsync(OutcomeRetryDelay * 4).ConfigureAwait(true);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            return null;
        }
    }

    /// <summary>
    /// Keeps or puts back what a transaction did to <paramref name="shard"/>, just promoted from a replica that applied
    /// the transaction's changes before its primary died, as the transaction's outcome says, asked as a held shard
    /// whose chain broke asks (<see cref="OutcomeAsync"/>), for at most <see cref="InheritedOutcomeAskedFor"/>. The shard
    /// serves no one until then.
    /// </summary>
    private async Task SettleInheritedAsync(Shard shard, HeldTransaction held)
    {
        var kept = await OutcomeAsync(held.Chain, held.Slots, held.Callback, InheritedOutcomeAskedFor).ConfigureAwait(true);
        _outcomes.Learned(held.Chain, kept);
        if (!kept)
        {
            TransactionUndo.Restore(shard, held);
        }

        shard.PendingTransaction = null;
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

    [LoggerMessage(EventId = LogEvents.TransactionChainBroken, Level = LogLevel.Information, Message = "Shard {Shard} lost its transaction's hold chain; it asks the silo running the transaction whether to keep what it ran")]
    private static partial void LogChainBroken(ILogger logger, Exception exception, int shard);

    [LoggerMessage(EventId = LogEvents.TransactionInherited, Level = LogLevel.Information, Message = "Shard {Shard} resumed from a replica holding a transaction's changes before its outcome; it learned the transaction was {Outcome} and settled its {Keys} keys accordingly")]
    private static partial void LogInheritedTransaction(ILogger logger, int shard, string outcome, int keys);

    [LoggerMessage(EventId = LogEvents.TransactionOutcomeUnknown, Level = LogLevel.Warning, Message = "Shard {Shard} could not learn its transaction's outcome from the silo running it (gone, or no answer within {Wait}) nor from its other shards; it rolled its keys back")]
    private static partial void LogOutcomeUnknown(ILogger logger, Exception exception, int shard, TimeSpan wait);
}
