using Cubby.Cluster;
using Cubby.Resp;

namespace Cubby.Silo.Cluster;

/// <summary>The cluster view as CUBBY.VIEW answers it and as view pushes carry it.</summary>
internal static class ViewReply
{
    /// <summary>The push's first element, naming what it carries.</summary>
    public static ReadOnlySpan<byte> PushKind => "cubby.view"u8;

    /// <summary>[version, slot count, [[id, host, port], ...]].</summary>
    public static void Write(RespWriter writer, ClusterView view)
    {
        writer.WriteArrayHeader(3);
        writer.WriteInteger(view.Version);
        writer.WriteInteger(view.SlotCount);
        writer.WriteArrayHeader(view.Silos.Count);
        foreach (var silo in view.Silos)
        {
            writer.WriteArrayHeader(3);
            writer.WriteBulkString(silo.Id);
            writer.WriteBulkString(silo.Host);
            writer.WriteInteger(silo.Port);
        }
    }
}
