using System.Buffers;
using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Silo.Commands;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Routing;

/// <summary>
/// A multi-key command (MGET, MSET, DEL, UNLINK, EXISTS, MSETNX) whose shards are not all active here: split into one
/// share per shard, each share run in its shard's turn (here, or through Orleans where the shard is), and the replies
/// merged into the one the client expects. MSETNX is atomic, so it is never split: its shards must all be on one silo.
/// </summary>
internal static class MultiKeyCalls
{
    public static async ValueTask RunAsync(ClientSession session, KeyCommand command, RespRequest request)
    {
        var silo = session.Silo;
        var keys = KeyArguments.Of(command, request.Count);
        var shares = SharesByShard(silo.Catalog.ShardMap, request, keys);
        if (command.Merge == ReplyMerge.None)
        {
            await RunWholeAsync(session, command, request, shares).ConfigureAwait(false);
            return;
        }

        var width = Math.Max(command.KeyStep, 1);
        var merged = new MergedReply(command.Merge, keys.Count);
        var relayed = new List<(Task<RelayedReply> Reply, List<int> Share)>();
        foreach (var (slot, share) in shares)
        {
            using var part = Share(request, keys, share, width);
            if (!TryRunShareHere(session, command, part, slot, merged, share))
            {
                // Copied now: the request's buffers belong to the connection again once this method first awaits.
                relayed.Add((ShardRelay.RunAsync(silo, slot, ShardRelay.Command(part, session.Context), session.CallBudget), share));
            }
        }

        foreach (var (pending, share) in relayed)
        {
            var reply = await pending.ConfigureAwait(false);
            merged.Add(reply.Reply, reply.Boundaries, share);
        }

        await session.ReplyTurnAsync().ConfigureAwait(false);
        merged.WriteTo(session.Writer);
    }

    /// <summary>
    /// MSETNX: relayed whole when its keys share one shard; otherwise run here once every shard is active here (asking
    /// each absent one to activate, which places it here when this silo is its home), else refused with CROSSSLOT.
    /// </summary>
    private static async ValueTask RunWholeAsync(ClientSession session, KeyCommand command, RespRequest request, SortedDictionary<int, List<int>> shares)
    {
        var silo = session.Silo;
        if (shares.Count == 1)
        {
            await ShardCalls.RunAsync(session, request, shares.Keys.First()).ConfigureAwait(false);
            return;
        }

        var absent = shares.Keys.Where(slot => silo.Catalog.Find(slot) is not { IsOpen: true }).ToArray();
        using var copy = Copy(request);
        try
        {
            await Task.WhenAll(absent.Select(slot => ShardRelay.CallAsync(silo, grains => grains.GetGrain<IShardGrain>(slot).Count().AsTask()))).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            await session.ReplyTurnAsync().ConfigureAwait(false);
            session.Writer.WriteError(ShardRelay.Describe(exception, absent[0]));
            return;
        }

        await session.ReplyTurnAsync().ConfigureAwait(false);
        if (!KeyCommandRunner.TryRunHere(silo.Catalog, command, session.Context, copy))
        {
            session.Writer.WriteError(SiloErrors.CrossShard);
        }
    }

    /// <summary>Runs one share in its shard's turn if the shard is active here; false when it must be relayed.</summary>
    private static bool TryRunShareHere(ClientSession session, KeyCommand command, RespRequest part, int slot, MergedReply merged, List<int> share)
    {
        if (session.Silo.Catalog.Find(slot) is not { IsOpen: true })
        {
            // Relayed: no buffers to capture a reply that will not be written here.
            return false;
        }

        var context = session.Context;
        var captured = new ArrayBufferWriter<byte>();
        var boundaries = new List<int>();
        var previous = context.SwapWriter(new RespWriter(captured, context.Writer.Version));
        context.TrackBoundaries(captured, boundaries);
        bool ran;
        try
        {
            ran = KeyCommandRunner.TryRunHere(session.Silo.Catalog, slot, command, context, part);
        }
        finally
        {
            context.StopTrackingBoundaries();
            context.SwapWriter(previous);
        }

        if (ran)
        {
            merged.Add(captured.WrittenSpan, boundaries.ToArray(), share);
        }

        return ran;
    }

    /// <summary>The positions (in <paramref name="keys"/>) of each shard's keys, by shard.</summary>
    private static SortedDictionary<int, List<int>> SharesByShard(ShardMap shardMap, RespRequest request, List<int> keys)
    {
        var shares = new SortedDictionary<int, List<int>>();
        for (var position = 0; position < keys.Count; position++)
        {
            var slot = shardMap.SlotOf(request[keys[position]]);
            if (!shares.TryGetValue(slot, out var share))
            {
                shares[slot] = share = [];
            }

            share.Add(position);
        }

        return shares;
    }

    /// <summary>The command with only the keys (and their values) at <paramref name="share"/>'s positions.</summary>
    private static RespRequest Share(RespRequest request, List<int> keys, List<int> share, int width)
    {
        var part = new RespRequest();
        part.Append(request[0]);
        foreach (var position in share)
        {
            for (var i = 0; i < width; i++)
            {
                part.Append(request[keys[position] + i]);
            }
        }

        return part;
    }

    private static RespRequest Copy(RespRequest request)
    {
        var copy = new RespRequest();
        for (var i = 0; i < request.Count; i++)
        {
            copy.Append(request[i]);
        }

        return copy;
    }
}
