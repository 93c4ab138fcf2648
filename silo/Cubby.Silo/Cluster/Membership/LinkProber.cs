using System.Buffers;
using Cubby.Client.Connections;
using Cubby.Silo.Cluster.Links;

namespace Cubby.Silo.Cluster.Membership;

/// <summary>Probes a peer with <c>CUBBY.PROBE its-id</c> over the silo link; only <c>+OK</c> counts as alive.</summary>
internal sealed class LinkProber(SiloLinks links) : ISiloProber
{
    private static readonly ReplyParser<bool> IsOk = static (reply, _) => reply.FirstSpan[0] == (byte)'+';

    /// <inheritdoc />
    public Task<bool> ProbeAsync(MembershipEntry target, CancellationToken cancellationToken)
    {
        var connection = links.Control(target.Host, target.Port);
        var writer = CommandBuffer.Start();
        writer.WriteArrayHeader(2);
        writer.WriteBulkString(MembershipProtocol.Probe);
        writer.WriteBulkString(target.SiloId);
        return connection.ExecuteAsync(CommandBuffer.Written, IsOk, null, cancellationToken).AsTask();
    }
}
