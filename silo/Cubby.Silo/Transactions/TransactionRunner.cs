using System.Diagnostics;
using Cubby.Grains.Commands;
using Cubby.Sharding;
using Cubby.Silo.Commands;
using Cubby.Silo.Hosting;
using Cubby.Silo.Protocol;
using Cubby.Silo.Routing;

namespace Cubby.Silo.Transactions;

/// <summary>
/// Runs a transaction's queued commands atomically and in isolation across shards and silos: every shard the commands
/// touch is held first (<see cref="ShardHolds"/>); then the commands run one by one through the usual routes (directly
/// on held shards here, through their grains elsewhere), all in the holds' call chain. See docs/transactions.md.
/// </summary>
internal static class TransactionRunner
{
    public static async ValueTask ExecAsync(ClientSession session, QueuedTransaction transaction, WatchedKeys? watched)
    {
        using (transaction)
        {
            await session.ReplyTurnAsync().ConfigureAwait(false);
            var slots = SlotsOf(session.Silo, transaction, watched);
            if (slots.Length == 0)
            {
                await RunAsync(session, transaction).ConfigureAwait(false);
                return;
            }

            try
            {
                await ShardHolds.RunAsync(session.Silo.Grains, slots, () => RunIfUnchangedAsync(session, transaction, watched)).ConfigureAwait(false);
            }
            catch (ShardsNotHeldException exception)
            {
                session.Writer.WriteError(ErrorText.TransactionNotHeld(ShardRelay.Describe(exception.InnerException!, exception.FirstSlot)));
            }
            finally
            {
                if (watched is not null)
                {
                    WatchCommands.End(session.Silo, watched);
                }
            }
        }
    }

    /// <summary>Runs the commands unless a watched key changed since WATCH; then the reply is a null array, as in Redis.</summary>
    private static async ValueTask RunIfUnchangedAsync(ClientSession session, QueuedTransaction transaction, WatchedKeys? watched)
    {
        switch (watched is null ? true : await WatchCommands.UnchangedAsync(session, watched).ConfigureAwait(false))
        {
            case true:
                await RunAsync(session, transaction).ConfigureAwait(false);
                break;
            case false:
                session.Writer.WriteNullArray();
                break;
        }
    }

    /// <summary>Writes the EXEC reply: an array of each command's own reply, errors included, in queued order.</summary>
    private static async ValueTask RunAsync(ClientSession session, QueuedTransaction transaction)
    {
        var exec = session.TakeDeferredTracking();

        // With its shards held, the transaction runs whole: each command gets the whole call timeout, not what EXEC's own
        // wait for the holds left, which could stop one half of it.
        var arrived = session.ArrivedBy;
        session.ArrivedBy = Stopwatch.GetTimestamp();
        session.Writer.WriteArrayHeader(transaction.Commands.Count);
        foreach (var (_, request) in transaction.Commands)
        {
            CommandDispatcher.Execute(session, request);
            if (session.TakeDeferred() is { } deferred)
            {
                await session.AwaitDeferredAsync(deferred).ConfigureAwait(false);
            }
        }

        session.ArrivedBy = arrived;
        session.RestoreDeferredTracking(exec);
    }

    /// <summary>
    /// Every shard the commands touch and the watched keys live in, ascending: their keys' shards, or all of them for a
    /// whole-keyspace command.
    /// </summary>
    private static int[] SlotsOf(SiloRuntime silo, QueuedTransaction transaction, WatchedKeys? watched)
    {
        var slots = new SortedSet<int>(watched?.Keys.Select(static key => key.Slot) ?? []);
        foreach (var (command, request) in transaction.Commands)
        {
            if (command.WholeKeyspace)
            {
                return [.. Enumerable.Range(0, silo.Catalog.SlotCount)];
            }

            if (command.Keyed is not { } keyed)
            {
                continue;
            }

            foreach (var index in KeyArguments.Of(keyed, request.Count))
            {
                slots.Add(silo.Catalog.ShardMap.SlotOf(request[index]));
            }
        }

        return [.. slots];
    }
}
