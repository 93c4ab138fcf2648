using System.Buffers;
using Cubby.Resp;
using Cubby.Silo.Commands;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Cluster.Routing;

/// <summary>
/// A multi-key command (MGET, MSET, DEL, UNLINK, EXISTS, MSETNX) whose keys are not all here: split into one share per
/// silo, each share run where its keys live, the replies merged into the one the client expects. A share whose silo
/// cannot be reached, or whose slots are moving, is retried as the cluster changes, within the forward timeout.
/// </summary>
internal static class MultiKeyCalls
{
    public static async ValueTask RunAsync(ClientSession session, CommandDefinition command, RespRequest request)
    {
        var silo = session.Silo;
        var cluster = silo.Cluster;
        var deadline = silo.Time.GetUtcNow() + silo.Options.Clustering.ForwardTimeout;
        var keys = KeyArguments.Of(command, request.Count);
        var merged = new MergedReply(command.Merge, keys.Count);
        var pending = Enumerable.Range(0, keys.Count).ToList();
        try
        {
            while (pending.Count > 0)
            {
                var changed = ClusterChanges.Next(cluster);
                if (!TryGroup(session, request, keys, pending, out var local, out var remote, out var blocked))
                {
                    session.Writer.WriteError(ErrorText.Fenced);
                    return;
                }

                if (blocked is null && command.Merge == ReplyMerge.None && remote.Count + (local.Count > 0 ? 1 : 0) > 1)
                {
                    session.Writer.WriteError(ErrorText.CrossSilo);
                    return;
                }

                if (blocked is null && local.Count > 0 && TryRunHere(session, command, request, keys, local, merged))
                {
                    pending.RemoveAll(local.Contains);
                }

                var forwarded = remote.Select(share => ForwardAsync(session, command, request, keys, share.Value, share.Key)).ToArray();
                foreach (var task in forwarded)
                {
                    if (await task.ConfigureAwait(false) is { } done)
                    {
                        using (done.Reply)
                        {
                            merged.Add(done.Reply.Span, done.Share);
                        }

                        pending.RemoveAll(done.Share.Contains);
                    }
                }

                if (merged.Error is not null || pending.Count == 0)
                {
                    break;
                }

                if (!await ClusterChanges.WaitAsync(silo, changed, deadline).ConfigureAwait(false))
                {
                    merged.Fail(ErrorText.SlotMoving(blocked ?? silo.Catalog.ShardMap.SlotOf(request[keys[pending[0]]])));
                    break;
                }
            }

            merged.WriteTo(session.Writer);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            session.Writer.WriteError("ERR internal error: " + exception.Message);
        }
    }

    /// <summary>Sorts the pending keys (by position) into those that run here and those for each other silo.</summary>
    private static bool TryGroup(ClientSession session, RespRequest request, List<int> keys, List<int> pending, out List<int> local, out Dictionary<Cubby.Cluster.SiloEndpoint, List<int>> remote, out int? blocked)
    {
        local = [];
        remote = [];
        blocked = null;
        var shardMap = session.Silo.Catalog.ShardMap;
        foreach (var position in pending)
        {
            var slot = shardMap.SlotOf(request[keys[position]]);
            var route = SlotRoute.Decide(session.Silo.Cluster, slot, session.Hops);
            switch (route.Kind)
            {
                case SlotRouteKind.Fenced:
                    return false;
                case SlotRouteKind.Local:
                    local.Add(position);
                    break;
                case SlotRouteKind.Forward:
                    if (!remote.TryGetValue(route.Target!, out var share))
                    {
                        remote[route.Target!] = share = [];
                    }

                    share.Add(position);
                    break;
                default:
                    blocked ??= slot;
                    break;
            }
        }

        return true;
    }

    /// <summary>Runs this silo's share with every slot's gate held; false when a slot left meanwhile.</summary>
    private static bool TryRunHere(ClientSession session, CommandDefinition command, RespRequest request, List<int> keys, List<int> share, MergedReply merged)
    {
        var slots = session.Silo.Cluster.Slots;
        var shardMap = session.Silo.Catalog.ShardMap;
        var entered = new List<int>(share.Count);
        try
        {
            foreach (var position in share)
            {
                var slot = shardMap.SlotOf(request[keys[position]]);
                if (!slots.TryEnter(slot))
                {
                    return false;
                }

                entered.Add(slot);
            }

            using var part = Share(command, request, keys, share);
            var captured = new ArrayBufferWriter<byte>();
            var previous = session.SwapWriter(new RespWriter(captured, session.Writer.Version));
            try
            {
                command.Handler(session, part);
            }
            finally
            {
                session.SwapWriter(previous);
            }

            merged.Add(captured.WrittenSpan, share);
            return true;
        }
        finally
        {
            foreach (var slot in entered)
            {
                slots.Exit(slot);
            }
        }
    }

    private static async Task<(Links.RawReply Reply, List<int> Share)?> ForwardAsync(ClientSession session, CommandDefinition command, RespRequest request, List<int> keys, List<int> share, Cubby.Cluster.SiloEndpoint target)
    {
        session.Silo.Statistics.Forwarded();
        using var part = Share(command, request, keys, share);
        return await Forwarder.TryForwardAsync(session, part, null, target).ConfigureAwait(false) is { } reply ? (reply, share) : null;
    }

    /// <summary>The command with only the keys (and their values) at <paramref name="share"/>'s positions.</summary>
    private static RespRequest Share(CommandDefinition command, RespRequest request, List<int> keys, List<int> share)
    {
        var part = new RespRequest();
        part.Append(request[0]);
        var width = Math.Max(command.KeyStep, 1);
        foreach (var position in share)
        {
            for (var i = 0; i < width; i++)
            {
                part.Append(request[keys[position] + i]);
            }
        }

        return part;
    }
}
