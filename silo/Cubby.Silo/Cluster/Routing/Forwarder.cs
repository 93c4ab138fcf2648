using Cubby.Client;
using Cubby.Client.Connections;
using Cubby.Cluster;
using Cubby.Resp;
using Cubby.Silo.Cluster.Links;
using Cubby.Silo.Hosting;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Cluster.Routing;

/// <summary>Sends a client's command to the silo that has its slot, wrapped so that silo knows how to answer.</summary>
internal static class Forwarder
{
    /// <summary>
    /// The wrapper: <c>CUBBY.FORWARD protocol hops command args...</c>. The peer answers in the client's protocol, so the
    /// reply can be relayed byte for byte, and counts hops so that silos whose views disagree cannot bounce a call forever.
    /// </summary>
    public static ReadOnlySpan<byte> CommandName => "CUBBY.FORWARD"u8;

    /// <summary>Beyond this many hops a call fails instead of being forwarded again.</summary>
    public const int MaxHops = 4;

    /// <summary>
    /// Forwards <paramref name="arguments"/> of <paramref name="request"/> (all of them when null) to
    /// <paramref name="target"/>; the reply, or null when the silo could not be reached.
    /// </summary>
    public static ValueTask<RawReply?> TryForwardAsync(ClientSession session, RespRequest request, IReadOnlyList<int>? arguments, SiloEndpoint target) =>
        TryForwardAsync(session.Silo, request, arguments, target, session.Writer.Version, session.Hops);

    /// <summary>The same for a call that comes from this silo itself (no client session): hops as given.</summary>
    public static async ValueTask<RawReply?> TryForwardAsync(SiloRuntime silo, RespRequest request, IReadOnlyList<int>? arguments, SiloEndpoint target, RespVersion version, int hops)
    {
        try
        {
            var connection = silo.Links.To(target.Host, target.Port);
            return await connection.ExecuteAsync(Encode(request, arguments, version, hops), RawReply.Parser, null, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is CubbyConnectionException or TimeoutException or ObjectDisposedException)
        {
            silo.Statistics.ForwardFailed();
            return null;
        }
    }

    private static ReadOnlySpan<byte> Encode(RespRequest request, IReadOnlyList<int>? arguments, RespVersion version, int currentHops)
    {
        var writer = CommandBuffer.Start();
        var count = arguments?.Count ?? request.Count;
        writer.WriteArrayHeader(count + 3);
        writer.WriteBulkString(CommandName);
        writer.WriteBulkString(version == RespVersion.Resp3 ? "3"u8 : "2"u8);
        Span<byte> hops = stackalloc byte[1];
        hops[0] = (byte)('0' + Math.Min(currentHops + 1, 9));
        writer.WriteBulkString(hops);
        for (var i = 0; i < count; i++)
        {
            writer.WriteBulkString(request[arguments?[i] ?? i]);
        }

        return CommandBuffer.Written;
    }
}
