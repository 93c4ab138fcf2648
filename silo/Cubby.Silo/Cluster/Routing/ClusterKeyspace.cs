using Cubby.Resp;
using Cubby.Silo.Commands;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Cluster.Routing;

/// <summary>DBSIZE, FLUSHALL, KEYS and SCAN over the whole cluster: this silo's part plus every live peer's.</summary>
internal static class ClusterKeyspace
{
    public static async ValueTask DbSizeAsync(ClientSession session)
    {
        var total = session.Silo.Catalog.Count();
        var failure = await BroadcastAsync(session, ["DBSIZE"u8.ToArray()], reply =>
        {
            if (RawReplies.TryReadInteger(reply, out var count))
            {
                total += count;
            }
        }).ConfigureAwait(false);
        WriteOr(session, failure, () => session.Writer.WriteInteger(total));
    }

    public static async ValueTask FlushAllAsync(ClientSession session)
    {
        LocalKeyspace.Flush(session.Silo);
        var failure = await BroadcastAsync(session, ["FLUSHALL"u8.ToArray()], static _ => { }).ConfigureAwait(false);
        WriteOr(session, failure, session.Writer.WriteOk);
    }

    public static async ValueTask KeysAsync(ClientSession session, byte[] pattern)
    {
        var keys = LocalKeyspace.Keys(session.Silo, pattern);
        var failure = await BroadcastAsync(session, ["KEYS"u8.ToArray(), pattern], reply => RawReplies.AddBulkStrings(reply, keys)).ConfigureAwait(false);
        WriteOr(session, failure, () => MatchingKeys.WriteArray(session.Writer, keys));
    }

    /// <summary>SCAN's cursor is a slot: each slot's keys come from wherever the slot is, one slot at a time.</summary>
    public static async ValueTask ScanAsync(ClientSession session, ulong cursor, byte[]? pattern, long count, bool stringsOnly)
    {
        var silo = session.Silo;
        var keys = new List<byte[]>();
        var slot = cursor;
        var slotCount = (ulong)silo.Catalog.SlotCount;
        while (slot < slotCount && keys.Count < count)
        {
            if (stringsOnly && await SlotKeysAsync(session, (int)slot, pattern, keys).ConfigureAwait(false) is { } failure)
            {
                session.Writer.WriteError(failure);
                return;
            }

            slot++;
        }

        session.Writer.WriteArrayHeader(2);
        session.Writer.WriteBulkString((slot >= slotCount ? 0 : slot).ToString(System.Globalization.CultureInfo.InvariantCulture));
        MatchingKeys.WriteArray(session.Writer, keys);
    }

    private static async ValueTask<string?> SlotKeysAsync(ClientSession session, int slot, byte[]? pattern, List<byte[]> keys)
    {
        var silo = session.Silo;
        var cluster = silo.Cluster;
        var deadline = silo.Time.GetUtcNow() + silo.Options.Clustering.ForwardTimeout;
        while (true)
        {
            var changed = ClusterChanges.Next(cluster);
            var route = SlotRoute.Decide(cluster, slot, session.Hops);
            if (route.Kind == SlotRouteKind.Fenced)
            {
                return ErrorText.Fenced;
            }

            if (route.Kind == SlotRouteKind.Local && cluster.Slots.TryEnter(slot))
            {
                try
                {
                    var sink = new MatchingKeys(pattern, keys);
                    silo.Catalog.Find(slot)?.VisitKeys(ref sink);
                    return null;
                }
                finally
                {
                    cluster.Slots.Exit(slot);
                }
            }

            if (route.Kind == SlotRouteKind.Forward)
            {
                using var request = new RespRequest();
                request.Append("CUBBY.SLOTKEYS"u8);
                request.Append(System.Text.Encoding.ASCII.GetBytes(slot.ToString(System.Globalization.CultureInfo.InvariantCulture)));
                if (pattern is not null)
                {
                    request.Append(pattern);
                }

                if (await Forwarder.TryForwardAsync(session, request, null, route.Target!).ConfigureAwait(false) is { } reply)
                {
                    using (reply)
                    {
                        if (RawReplies.IsError(reply.Span))
                        {
                            return System.Text.Encoding.UTF8.GetString(reply.Span[1..^2]);
                        }

                        RawReplies.AddBulkStrings(reply.Span, keys);
                        return null;
                    }
                }
            }

            if (route.Kind != SlotRouteKind.Local && !await ClusterChanges.WaitAsync(silo, changed, deadline).ConfigureAwait(false))
            {
                return ErrorText.SlotMoving(slot);
            }
        }
    }

    /// <summary>Runs <c>CUBBY.LOCAL arguments</c> on every live peer; the first failure's error text, or null.</summary>
    private static async ValueTask<string?> BroadcastAsync(ClientSession session, byte[][] arguments, Action<ReadOnlySpan<byte>> onReply)
    {
        var peers = session.Silo.Cluster.LivePeers();
        var calls = new Task<Links.RawReply?>[peers.Count];
        for (var i = 0; i < peers.Count; i++)
        {
            using var request = new RespRequest();
            request.Append("CUBBY.LOCAL"u8);
            foreach (var argument in arguments)
            {
                request.Append(argument);
            }

            calls[i] = Forwarder.TryForwardAsync(session, request, null, peers[i]).AsTask();
        }

        string? failure = null;
        for (var i = 0; i < calls.Length; i++)
        {
            if (await calls[i].ConfigureAwait(false) is not { } reply)
            {
                failure ??= ErrorText.ForwardFailed(peers[i].ToString(), "not reachable");
                continue;
            }

            using (reply)
            {
                if (RawReplies.IsError(reply.Span))
                {
                    failure ??= System.Text.Encoding.UTF8.GetString(reply.Span[1..^2]);
                }
                else
                {
                    onReply(reply.Span);
                }
            }
        }

        return failure;
    }

    private static void WriteOr(ClientSession session, string? failure, Action write)
    {
        if (failure is not null)
        {
            session.Writer.WriteError(failure);
        }
        else
        {
            write();
        }
    }
}
