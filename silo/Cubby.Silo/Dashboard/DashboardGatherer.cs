using System.Buffers;
using System.Text.Json;
using Cubby.Client;
using Cubby.Client.Connections;
using Cubby.Resp;
using Cubby.Silo.Cluster;
using Cubby.Silo.Cluster.Membership;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Dashboard;

/// <summary>
/// Builds the <see cref="DashboardReport"/>: the membership table as this silo last read it, this silo's own stats,
/// and each live peer's, asked over the silo links with <c>CUBBY.LOCAL STATS</c>. A peer that does not answer within
/// <see cref="PeerTimeout"/> is shown as unreachable rather than holding the page up.
/// </summary>
internal sealed class DashboardGatherer(SiloRuntime silo, MembershipEventLog events)
{
    public static readonly TimeSpan PeerTimeout = TimeSpan.FromSeconds(1);

    public async Task<DashboardReport> GatherAsync(int seconds, CancellationToken cancellationToken)
    {
        var cluster = silo.Cluster;
        var view = cluster.View;
        var owned = ClusterState.CountOwnedSlots(view);

        var rows = cluster.Members?.Entries.Select(static row => row.Entry).ToList() ?? [];
        var stats = await Task.WhenAll(rows.Select(row => StatsOfAsync(row, seconds, cancellationToken))).ConfigureAwait(false);
        var silos = rows.Select((row, i) => new DashboardSilo(
            row.SiloId,
            $"{row.Host}:{row.Port}",
            row.Status.ToString(),
            row.Generation,
            owned.GetValueOrDefault(row.SiloId),
            row.SiloId == cluster.SelfId,
            stats[i] is not null,
            row.IAmAliveAt,
            stats[i])).ToList();
        return new DashboardReport(
            silo.Options.ClusterId,
            silo.Options.Clustering.Mode.ToString(),
            cluster.SelfId,
            view?.Version ?? 0,
            silo.Options.SlotCount,
            silo.Time.GetUtcNow(),
            silos,
            events.Latest());
    }

    private async Task<SiloStats?> StatsOfAsync(MembershipEntry row, int seconds, CancellationToken cancellationToken)
    {
        if (row.SiloId == silo.Cluster.SelfId)
        {
            return SiloStats.Of(silo, seconds);
        }

        if (row.Status == SiloStatus.Dead)
        {
            return null;
        }

        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(PeerTimeout);
        try
        {
            var json = await silo.Links.To(row.Host, row.Port).ExecuteAsync(Encode(seconds), ReadBulkString, null, timeout.Token).ConfigureAwait(false);
            return json is null ? null : JsonSerializer.Deserialize(json, DashboardJson.Default.SiloStats);
        }
        catch (Exception exception) when (exception is CubbyConnectionException or TimeoutException or OperationCanceledException or ObjectDisposedException or JsonException)
        {
            return null;
        }
    }

    private static ReadOnlySpan<byte> Encode(int seconds)
    {
        var writer = CommandBuffer.Start();
        writer.WriteArrayHeader(3);
        writer.WriteBulkString("CUBBY.LOCAL"u8);
        writer.WriteBulkString("STATS"u8);
        Span<byte> digits = stackalloc byte[11];
        seconds.TryFormat(digits, out var written, provider: System.Globalization.CultureInfo.InvariantCulture);
        writer.WriteBulkString(digits[..written]);
        return CommandBuffer.Written;
    }

    /// <summary>The payload of a bulk string reply; null for any other reply (an error from a peer that lacks STATS).</summary>
    private static byte[]? ReadBulkString(ReadOnlySequence<byte> reply, object? state)
    {
        var reader = new SequenceReader<byte>(reply);
        if (!reader.TryRead(out var type) || type != (byte)'$' || !reader.TryReadTo(out ReadOnlySequence<byte> header, "\r\n"u8))
        {
            return null;
        }

        var rest = reply.Slice(reader.Position);
        var length = checked((int)rest.Length) - 2;
        return length >= 0 && header.Length > 0 ? rest.Slice(0, length).ToArray() : null;
    }
}
