using System.Diagnostics;
using Cubby.Sharding;
using Cubby.Silo.Protocol;
using Cubby.Silo.Routing;
using Cubby.Silo.Transactions;

namespace Cubby.Silo.Commands.TwoKeys;

/// <summary>
/// Runs a command on two keys (RENAME, COPY, LCS) as one atomic step: on the shards themselves when this silo holds
/// their turns, else through their grains while both are held (as EXEC holds them; see docs/transactions.md).
/// </summary>
internal static class TwoKeyRunner
{
    /// <summary>Both shards are active here and the caller holds their turns: runs and replies at once.</summary>
    public static void RunHere<TResult>(ClientSession session, Func<IEntryShards, ValueTask<TResult>> work, Action<ClientSession, TResult> reply)
    {
        TResult result;
        try
        {
            var pending = work(new LocalShards(session.Silo.Catalog));
            Debug.Assert(pending.IsCompleted, "Local shards answer at once.");
            result = pending.Result;
        }
        catch (CubbyOutOfMemoryException)
        {
            session.Writer.WriteError(ErrorText.OutOfMemory);
            return;
        }

        reply(session, result);
    }

    /// <summary>Holds the shards of <paramref name="first"/> and <paramref name="second"/>, runs, then replies in turn.</summary>
    public static async ValueTask RunHeldAsync<TResult>(
        ClientSession session, byte[] first, byte[] second, Func<IEntryShards, ValueTask<TResult>> work, Action<ClientSession, TResult> reply)
    {
        var silo = session.Silo;
        var shardMap = silo.Catalog.ShardMap;
        int[] slots = [.. new SortedSet<int> { shardMap.SlotOf(first), shardMap.SlotOf(second) }];
        var result = default(TResult)!;
        string? error = null;
        try
        {
            await ShardHolds.RunAsync(silo.Grains, slots, async () => result = await work(new HeldShardGrains(silo.Grains, shardMap)).ConfigureAwait(false))
                .ConfigureAwait(false);
        }
        catch (ShardsNotHeldException exception)
        {
            error = ShardRelay.Describe(exception.InnerException!, exception.FirstSlot);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            error = ShardRelay.Describe(exception, slots[0]);
        }

        await session.ReplyTurnAsync().ConfigureAwait(false);
        if (error is not null)
        {
            session.Writer.WriteError(error);
        }
        else
        {
            reply(session, result);
        }
    }
}
