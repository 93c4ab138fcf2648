using System.Buffers;
using System.Diagnostics;
using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Silo.Commands;
using Cubby.Silo.Hosting;
using Cubby.Silo.Protocol;
using Cubby.Silo.Routing;
using Cubby.Text;

namespace Cubby.Silo.Transactions;

/// <summary>
/// Runs a transaction's queued commands atomically and in isolation across shards and silos: every shard the commands
/// touch is held first (<see cref="ShardHolds"/>); then the commands run one by one through the usual routes (directly
/// on held shards here, through their grains elsewhere), all in the holds' call chain. A command that cannot reach its
/// shard rolls the transaction back. See docs/transactions.md.
/// </summary>
internal static class TransactionRunner
{
    public static async ValueTask ExecAsync(ClientSession session, QueuedTransaction transaction, WatchedKeys? watched)
    {
        using (transaction)
        {
            await session.ReplyTurnAsync().ConfigureAwait(false);
            var (slots, keys) = ShardsOf(session.Silo, transaction, watched);
            if (slots.Length == 0)
            {
                await RunAsync(session, transaction, canRollBack: false).ConfigureAwait(false);
                return;
            }

            // The reply waits for the outcome: the last shard may not keep what the commands did (docs/transactions.md).
            var reply = new ArrayBufferWriter<byte>();
            var writer = session.SwapWriter(new RespWriter(reply, session.Writer.Version));
            string? error = null;
            try
            {
                await ShardHolds.RunAsync(session.Silo.Grains, slots, keys, () => RunIfUnchangedAsync(session, transaction, watched, canRollBack: keys is not null)).ConfigureAwait(false);
            }
            catch (ShardsNotHeldException exception)
            {
                error = SiloErrors.TransactionNotHeld(ShardRelay.Describe(exception.InnerException!, exception.FirstSlot));
            }
            catch (TransactionNotKeptException exception)
            {
                error = exception.Error;
            }
            finally
            {
                session.SwapWriter(writer);
                if (watched is not null)
                {
                    WatchCommands.End(session.Silo, watched);
                }
            }

            if (error is not null)
            {
                session.Writer.WriteError(error);
            }
            else
            {
                session.Writer.WriteRaw(reply.WrittenSpan);
            }
        }
    }

    /// <summary>
    /// Runs the commands unless a watched key changed since WATCH; then the reply is a null array, as in Redis. Returns
    /// whether what ran is kept.
    /// </summary>
    private static async ValueTask<bool> RunIfUnchangedAsync(ClientSession session, QueuedTransaction transaction, WatchedKeys? watched, bool canRollBack)
    {
        switch (watched is null ? true : await WatchCommands.UnchangedAsync(session, watched).ConfigureAwait(false))
        {
            case true:
                return await RunAsync(session, transaction, canRollBack).ConfigureAwait(false);
            case false:
                session.Writer.WriteNullArray();
                return true;
            default:
                // The watches could not be checked: nothing ran, and the error is written.
                return true;
        }
    }

    /// <summary>
    /// Waits until this silo's shards have the commands' changes on their replicas, before the outcome is decided, as a
    /// shard on another silo has them before its call returns: a shard whose silo dies after a decision to keep resumes
    /// from a replica holding its part (docs/transactions.md). A shard that can no longer acknowledge writes (fenced) rolls
    /// the transaction back; the connection's own wait then fails too and drops it, as for any write such a shard took.
    /// </summary>
    private static async ValueTask SettleAsync(ClientSession session)
    {
        if (!session.Context.AwaitsSettling)
        {
            return;
        }

        try
        {
            await session.Context.WhenNotedSettledAsync().ConfigureAwait(false);
        }
        catch (InvalidOperationException exception)
        {
            TransactionFaults.Note(exception.Message);
        }
    }

    /// <summary>
    /// Writes the EXEC reply: an array of each command's own reply, errors included, in queued order. When a command
    /// could not reach its shard (or failed for any reason but its own) and the transaction <paramref name="canRollBack"/>,
    /// the reply is that error instead, and false says to roll back what the others did.
    /// </summary>
    private static async ValueTask<bool> RunAsync(ClientSession session, QueuedTransaction transaction, bool canRollBack)
    {
        var exec = session.TakeDeferredTracking();

        // With its shards held, the transaction runs whole: each command gets the whole call timeout, not what EXEC's own
        // wait for the holds left, which could stop one half of it.
        var arrived = session.ArrivedBy;
        session.ArrivedBy = Stopwatch.GetTimestamp();
        var replies = new ArrayBufferWriter<byte>();
        var writer = session.SwapWriter(new RespWriter(replies, session.Writer.Version));
        var faults = TransactionFaults.Collect();
        try
        {
            session.Writer.WriteArrayHeader(transaction.Commands.Count);
            foreach (var (_, request) in transaction.Commands)
            {
                CommandDispatcher.Execute(session, request);
                if (session.TakeDeferred() is { } deferred)
                {
                    await session.AwaitDeferredAsync(deferred).ConfigureAwait(false);
                }
            }

            await SettleAsync(session).ConfigureAwait(false);
        }
        finally
        {
            session.SwapWriter(writer);
            session.ArrivedBy = arrived;
            session.RestoreDeferredTracking(exec);
        }

        if (canRollBack && faults.First is { } fault)
        {
            session.Writer.WriteError(SiloErrors.TransactionRolledBack(fault));
            return false;
        }

        session.Writer.WriteRaw(replies.WrittenSpan);
        return true;
    }

    /// <summary>
    /// Every shard the commands touch and the watched keys live in, ascending, with the keys the commands name in each
    /// (what a rollback puts back); every shard and no keys for a whole-keyspace command, which cannot be rolled back.
    /// </summary>
    private static (int[] Slots, byte[][][]? Keys) ShardsOf(SiloRuntime silo, QueuedTransaction transaction, WatchedKeys? watched)
    {
        var keys = new SortedDictionary<int, HashSet<byte[]>>();
        HashSet<byte[]> KeysOf(int slot) => keys.TryGetValue(slot, out var set) ? set : keys[slot] = new HashSet<byte[]>(ByteStringComparer.Instance);
        foreach (var key in watched?.Keys ?? [])
        {
            KeysOf(key.Slot);
        }

        foreach (var (command, request) in transaction.Commands)
        {
            if (command.WholeKeyspace)
            {
                return ([.. Enumerable.Range(0, silo.Catalog.SlotCount)], null);
            }

            if (command.Keyed is not { } keyed)
            {
                continue;
            }

            foreach (var index in KeyArguments.Of(keyed, request.Count))
            {
                var key = request[index];
                KeysOf(silo.Catalog.ShardMap.SlotOf(key)).Add(key.ToArray());
            }
        }

        return ([.. keys.Keys], [.. keys.Values.Select(static set => set.ToArray())]);
    }
}
