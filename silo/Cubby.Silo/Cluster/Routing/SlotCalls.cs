using Cubby.Silo.Commands;
using Cubby.Silo.Protocol;
using Cubby.Resp;

namespace Cubby.Silo.Cluster.Routing;

/// <summary>
/// A single-slot command that cannot run here at once: forwarded to the silo that has the slot, or held until a slot
/// being handed off has arrived, within <c>Cubby:Clustering:ForwardTimeout</c>.
/// </summary>
internal static class SlotCalls
{
    public static async ValueTask RunAsync(ClientSession session, CommandDefinition command, RespRequest request, int slot)
    {
        var silo = session.Silo;
        var cluster = silo.Cluster;
        var deadline = silo.Time.GetUtcNow() + silo.Options.Clustering.ForwardTimeout;
        try
        {
            while (true)
            {
                var changed = ClusterChanges.Next(cluster);
                var route = SlotRoute.Decide(cluster, slot, session.Hops);
                switch (route.Kind)
                {
                    case SlotRouteKind.Fenced:
                        session.Writer.WriteError(ErrorText.Fenced);
                        return;
                    case SlotRouteKind.Local when cluster.Slots.TryEnter(slot):
                        silo.Metrics.CountSlot(slot);
                        try
                        {
                            command.Handler(session, request);
                        }
                        finally
                        {
                            cluster.Slots.Exit(slot);
                        }

                        return;
                    case SlotRouteKind.Local:
                        continue;
                    case SlotRouteKind.Forward:
                        silo.Statistics.Forwarded();
                        if (await Forwarder.TryForwardAsync(session, request, null, route.Target!).ConfigureAwait(false) is { } reply)
                        {
                            using (reply)
                            {
                                session.Writer.WriteRelayedReply(reply.Span);
                            }

                            return;
                        }

                        break;
                }

                if (!await ClusterChanges.WaitAsync(silo, changed, deadline).ConfigureAwait(false))
                {
                    session.Writer.WriteError(route.Kind == SlotRouteKind.Forward
                        ? ErrorText.ForwardFailed(route.Target!.ToString(), "no answer before Cubby:Clustering:ForwardTimeout")
                        : ErrorText.SlotMoving(slot));
                    return;
                }
            }
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            session.Writer.WriteError("ERR internal error: " + exception.Message);
        }
    }
}
