using System.Text.Json;
using Cubby.Resp;
using Cubby.Silo.Dashboard;
using Cubby.Silo.Commands;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Cluster.Routing;

/// <summary>The commands silos send each other to serve clients: forwarded calls and this silo's part of cluster-wide ones.</summary>
internal static class PeerCommands
{
    /// <summary><c>CUBBY.FORWARD protocol hops command args...</c>: runs the wrapped command as the client would have.</summary>
    public static void Forward(ClientSession session, RespRequest request)
    {
        if (!request.TryGetInt64(1, out var protocol) || protocol is not (2 or 3) || !request.TryGetInt64(2, out var hops) || hops is < 1 or > 9)
        {
            session.Writer.WriteError(ErrorText.Syntax);
            return;
        }

        // A link session runs nothing but forwarded calls, so each one sets the protocol and hop count it needs.
        session.Writer.Version = protocol == 3 ? RespVersion.Resp3 : RespVersion.Resp2;
        session.Hops = (int)hops;
        request.RemoveLeading(3);
        CommandDispatcher.Execute(session, request);
    }

    /// <summary>
    /// <c>CUBBY.LOCAL DBSIZE | FLUSHALL | KEYS pattern</c>: the same, over this silo's own slots only;
    /// <c>CUBBY.LOCAL STATS seconds</c>: this silo's numbers and last seconds of series for the dashboard, as JSON.
    /// </summary>
    public static void Local(ClientSession session, RespRequest request)
    {
        var catalog = session.Silo.Catalog;
        if (Arguments.Is(request[1], "DBSIZE"))
        {
            session.Writer.WriteInteger(catalog.Count());
        }
        else if (Arguments.Is(request[1], "FLUSHALL"))
        {
            LocalKeyspace.Flush(session.Silo);
            session.Writer.WriteOk();
        }
        else if (Arguments.Is(request[1], "KEYS") && request.Count == 3)
        {
            MatchingKeys.WriteArray(session.Writer, LocalKeyspace.Keys(session.Silo, request[2].ToArray()));
        }
        else if (Arguments.Is(request[1], "STATS") && request.Count == 3)
        {
            if (!request.TryGetInt64(2, out var seconds) || seconds is < 0 or > SiloStats.MaxSeconds)
            {
                session.Writer.WriteError($"ERR CUBBY.LOCAL STATS takes a number of seconds from 0 to {SiloStats.MaxSeconds}");
                return;
            }

            var stats = SiloStats.Of(session.Silo, (int)seconds);
            session.Writer.WriteBulkString(JsonSerializer.SerializeToUtf8Bytes(stats, DashboardJson.Default.SiloStats));
        }
        else
        {
            session.Writer.WriteError(ErrorText.UnknownSubcommand(request[1], "CUBBY.LOCAL"));
        }
    }

    /// <summary><c>CUBBY.SLOTKEYS slot [pattern]</c>: the keys of one slot, for SCAN; forwarded on if the slot is elsewhere.</summary>
    public static void SlotKeys(ClientSession session, RespRequest request)
    {
        if (!request.TryGetInt64(1, out var slot) || slot < 0 || slot >= session.Silo.Catalog.SlotCount || request.Count > 3)
        {
            session.Writer.WriteError(ErrorText.Syntax);
            return;
        }

        var slots = session.Silo.Cluster.Slots;
        if (!session.Silo.Cluster.IsStandalone && !slots.TryEnter((int)slot))
        {
            session.Defer(SlotCalls.RunAsync(session, session.Silo.Commands.Find("cubby.slotkeys"u8)!, request, (int)slot));
            return;
        }

        try
        {
            var keys = new List<byte[]>();
            var sink = new MatchingKeys(request.Count == 3 ? request[2].ToArray() : null, keys);
            session.Silo.Catalog.Find((int)slot)?.VisitKeys(ref sink);
            MatchingKeys.WriteArray(session.Writer, keys);
        }
        finally
        {
            if (!session.Silo.Cluster.IsStandalone)
            {
                slots.Exit((int)slot);
            }
        }
    }
}
