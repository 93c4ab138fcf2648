using Cubby.Silo.Cluster;

namespace Cubby.Silo.Protocol;

/// <summary>Tells RESP3 clients of a new cluster view with a push, so they route to new owners at once.</summary>
internal static class ViewPushes
{
    /// <summary>Writes a <c>cubby.view</c> push if the view has moved on since this client was last told.</summary>
    public static void WriteIfDue(ClientSession session)
    {
        if (!session.WantsViewPushes || session.Silo.Cluster.View is not { } view || view.Version <= session.PushedViewVersion)
        {
            return;
        }

        session.PushedViewVersion = view.Version;
        var writer = session.Writer;
        writer.WritePushHeader(2);
        writer.WriteBulkString(ViewReply.PushKind);
        ViewReply.Write(writer, view);
    }
}
