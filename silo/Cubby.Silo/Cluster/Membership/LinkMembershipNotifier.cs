using Cubby.Client.Connections;
using Cubby.Silo.Cluster.Links;
using Cubby.Silo.Hosting;
using Microsoft.Extensions.Options;

namespace Cubby.Silo.Cluster.Membership;

/// <summary>Sends <c>CUBBY.MEMBERSHIP.CHANGED</c> to peers over the silo links and forgets about it.</summary>
internal sealed partial class LinkMembershipNotifier(SiloLinks links, IOptions<SiloOptions> options, TimeProvider time, ILogger<LinkMembershipNotifier> logger) : IMembershipNotifier
{
    private readonly TimeSpan _timeout = options.Value.Clustering.ProbeTimeout;

    /// <inheritdoc />
    public void NotifyChanged(IEnumerable<MembershipEntry> peers)
    {
        foreach (var peer in peers)
        {
            _ = NotifyAsync(peer);
        }
    }

    // A peer that misses the news reads the table at its next refresh anyway: failures only cost latency.
    private async Task NotifyAsync(MembershipEntry peer)
    {
        try
        {
            using var timeout = new CancellationTokenSource(_timeout, time);
            var writer = CommandBuffer.Start();
            writer.WriteArrayHeader(1);
            writer.WriteBulkString(MembershipProtocol.Changed);
            await links.Control(peer.Host, peer.Port).ExecuteAsync(CommandBuffer.Written, Replies.Ok, null, timeout.Token).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            Log.NotifyFailed(logger, peer.SiloId, exception.Message);
        }
    }

    private static partial class Log
    {
        [LoggerMessage(1, LogLevel.Debug, "Could not tell {SiloId} that the membership table changed: {Reason}")]
        public static partial void NotifyFailed(ILogger logger, string siloId, string reason);
    }
}
