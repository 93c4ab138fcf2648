using Cubby.Grains.Commands;
using Cubby.Grains.Commands.TwoKeys;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Silo.Protocol;
using Cubby.Silo.Transactions;

namespace Cubby.Silo.Routing;

/// <summary>
/// A command on two keys (RENAME, COPY, LCS) whose shards are not both active here: it stays one atomic step by holding
/// both shards, as EXEC holds them (docs/transactions.md), and working through their grains meanwhile.
/// </summary>
internal static class TwoKeyCalls
{
    public static ValueTask RunAsync(ClientSession session, TwoKeyPlanner plan, RespRequest request) =>
        plan(session.Context, request) is { } work ? RunHeldAsync(session, work) : ValueTask.CompletedTask;

    private static async ValueTask RunHeldAsync(ClientSession session, TwoKeyWork work)
    {
        var silo = session.Silo;
        var shardMap = silo.Catalog.ShardMap;
        var (slots, keys) = ShardsOf(shardMap, work.First, work.Second);
        string? error = null;
        try
        {
            // A step that fails (a shard across a partition) throws: the holds then put both keys back.
            await ShardHolds.RunAsync(silo.Grains, slots, keys, async () =>
            {
                await work.RunAsync(new HeldShardGrains(silo.Grains, shardMap)).ConfigureAwait(false);
                return true;
            }).ConfigureAwait(false);
        }
        catch (ShardsNotHeldException exception)
        {
            error = ShardRelay.Describe(exception.InnerException!, exception.FirstSlot);
        }
        catch (TransactionNotKeptException exception)
        {
            error = exception.Error;
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
            work.WriteReply(session.Context);
        }
    }

    /// <summary>The shards of the two keys, ascending, with the keys of each.</summary>
    private static (int[] Slots, byte[][][] Keys) ShardsOf(ShardMap shardMap, byte[] first, byte[] second)
    {
        var (a, b) = (shardMap.SlotOf(first), shardMap.SlotOf(second));
        return a == b ? ([a], [[first, second]])
            : a < b ? ([a, b], [[first], [second]])
            : ([b, a], [[second], [first]]);
    }

    /// <summary>Shard grains wherever they are, called in the caller's call chain (which holds them).</summary>
    private sealed class HeldShardGrains(IGrainFactory grains, ShardMap shardMap) : IEntryShards
    {
        public ValueTask<ShardEntryCopy?> ExportAsync(byte[] key) => GrainOf(key).Export(key);

        public ValueTask<bool> ImportAsync(byte[] key, ShardEntryCopy entry, bool replace) => GrainOf(key).Import(key, entry, replace);

        public async ValueTask RemoveAsync(byte[] key) => await GrainOf(key).Remove([key]).ConfigureAwait(false);

        private IShardGrain GrainOf(byte[] key) => grains.GetGrain<IShardGrain>(shardMap.SlotOf(key));
    }
}
