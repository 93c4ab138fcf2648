using System.Buffers;
using System.Text;
using System.Text.Json;
using Cubby.Client;
using Cubby.Client.Connections;
using Cubby.Resp;
using Cubby.Silo.Cluster.Links;

namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// The Development provider's table as seen by a silo that is not the primary: every operation is forwarded over the
/// silo link to the primary (<c>CUBBY.MEMBERSHIP op json</c>), which runs it against the table it keeps in memory.
/// Entries are checked here first, so a bad one fails as it would against a local table.
/// </summary>
internal sealed class RemoteMembershipTable(string clusterId, string primaryHost, int primaryPort, SiloLinks links) : IMembershipTable
{
    private static readonly RespLimits Limits = new() { MaxBulkBytes = Array.MaxLength, MaxArrayLength = Array.MaxLength };

    private static readonly ReplyParser<bool> Ok = static (reply, _) => Read(reply).Type == RespType.SimpleString;

    private static readonly ReplyParser<bool> Changed = static (reply, _) => Read(reply) is { Type: RespType.Integer } item
        ? item.Integer == 1
        : throw Malformed("an integer");

    private static readonly ReplyParser<int> Count = static (reply, _) => Read(reply) is { Type: RespType.Integer } item
        ? checked((int)item.Integer)
        : throw Malformed("an integer");

    private static readonly ReplyParser<MembershipSnapshot> Snapshot = static (reply, _) =>
    {
        var item = Read(reply);
        if (item.Type != RespType.BulkString || item.IsNull)
        {
            throw Malformed("a snapshot");
        }

        var json = new Utf8JsonReader(item.Payload);
        return JsonSerializer.Deserialize(ref json, MembershipJson.Default.MembershipSnapshot) ?? throw Malformed("a snapshot");
    };

    /// <summary>The cluster this table belongs to.</summary>
    public string ClusterId { get; } = clusterId;

    /// <inheritdoc />
    public Task InitializeAsync(CancellationToken cancellationToken) =>
        SendAsync(MembershipProtocol.Operations.Initialize, new MembershipRequest(ClusterId), Ok, cancellationToken);

    /// <inheritdoc />
    public Task<MembershipSnapshot> ReadAllAsync(CancellationToken cancellationToken) =>
        SendAsync(MembershipProtocol.Operations.ReadAll, new MembershipRequest(ClusterId), Snapshot, cancellationToken);

    /// <inheritdoc />
    public Task<bool> TryInsertAsync(MembershipEntry entry, long expectedVersion, CancellationToken cancellationToken)
    {
        var normalized = MembershipEntryRules.Normalize(entry);
        return SendAsync(MembershipProtocol.Operations.Insert, new MembershipRequest(ClusterId, normalized, expectedVersion), Changed, cancellationToken);
    }

    /// <inheritdoc />
    public Task<bool> TryUpdateAsync(MembershipEntry entry, string etag, long expectedVersion, CancellationToken cancellationToken)
    {
        var normalized = MembershipEntryRules.Normalize(entry);
        ArgumentNullException.ThrowIfNull(etag);
        return SendAsync(MembershipProtocol.Operations.Update, new MembershipRequest(ClusterId, normalized, expectedVersion, etag), Changed, cancellationToken);
    }

    /// <inheritdoc />
    public Task UpdateIAmAliveAsync(string siloId, DateTimeOffset at, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(siloId);
        return SendAsync(MembershipProtocol.Operations.IAmAlive, new MembershipRequest(ClusterId, SiloId: siloId, At: at), Ok, cancellationToken);
    }

    /// <inheritdoc />
    public Task<int> DeleteDefunctAsync(DateTimeOffset deadBefore, CancellationToken cancellationToken) =>
        SendAsync(MembershipProtocol.Operations.DeleteDefunct, new MembershipRequest(ClusterId, At: deadBefore), Count, cancellationToken);

    /// <inheritdoc />
    public Task DeleteClusterAsync(CancellationToken cancellationToken) =>
        SendAsync(MembershipProtocol.Operations.DeleteCluster, new MembershipRequest(ClusterId), Ok, cancellationToken);

    private Task<T> SendAsync<T>(string operation, MembershipRequest request, ReplyParser<T> parser, CancellationToken cancellationToken)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return Task.FromCanceled<T>(cancellationToken);
        }

        var json = JsonSerializer.SerializeToUtf8Bytes(request, MembershipJson.Default.MembershipRequest);
        var connection = links.Control(primaryHost, primaryPort);
        var writer = CommandBuffer.Start();
        writer.WriteArrayHeader(3);
        writer.WriteBulkString(MembershipProtocol.Table);
        writer.WriteBulkString(operation);
        writer.WriteBulkString(json);
        return connection.ExecuteAsync(CommandBuffer.Written, parser, null, cancellationToken).AsTask();
    }

    /// <summary>The reply's one item; a table error from the primary becomes the <see cref="InvalidOperationException"/> a local table throws.</summary>
    private static RespItem Read(ReadOnlySequence<byte> reply)
    {
        var reader = new SequenceReader<byte>(reply);
        if (RespItemReader.TryRead(ref reader, Limits, out var item, out var error) != RespParseStatus.Complete)
        {
            throw new CubbyConnectionException($"The membership primary sent a malformed reply: {error ?? "truncated"}");
        }

        if (item.Type is RespType.Error or RespType.BulkError)
        {
            var text = Encoding.UTF8.GetString(item.Payload);
            const string TablePrefix = MembershipProtocol.TableErrorCode + " ";
            throw text.StartsWith(TablePrefix, StringComparison.Ordinal)
                ? new InvalidOperationException(text[TablePrefix.Length..])
                : new CubbyServerException(text);
        }

        return item;
    }

    private static CubbyConnectionException Malformed(string expected) => new($"The membership primary did not send {expected}.");
}
