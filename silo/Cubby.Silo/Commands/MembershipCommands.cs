using System.Text;
using System.Text.Json;
using Cubby.Resp;
using Cubby.Silo.Cluster.Membership;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Commands;

/// <summary>
/// The membership commands silos send each other (only cluster peers may: see <see cref="CommandDefinition.PeersOnly"/>):
/// probes, "the table changed", and the Development primary's table operations.
/// </summary>
internal static class MembershipCommands
{
    /// <summary>CUBBY.PROBE silo-id: <c>+OK</c> only when this silo is that very incarnation and still serving.</summary>
    public static void Probe(ClientSession session, RespRequest request)
    {
        var membership = session.Silo.Membership;
        if (membership?.Self is not { } self)
        {
            session.Writer.WriteError(ErrorText.NotJoined);
        }
        else if (membership.IsFenced)
        {
            session.Writer.WriteError(ErrorText.Fenced);
        }
        else if (request.GetString(1) != self.SiloId)
        {
            session.Writer.WriteError($"ERR this is silo {self.SiloId}, not {request.GetString(1)}");
        }
        else
        {
            session.Writer.WriteOk();
        }
    }

    /// <summary>CUBBY.MEMBERSHIP.CHANGED: a peer changed the table; read it now.</summary>
    public static void Changed(ClientSession session, RespRequest request)
    {
        session.Silo.Membership?.RefreshSoon();
        session.Writer.WriteOk();
    }

    /// <summary>
    /// CUBBY.MEMBERSHIP op json: runs one table operation (see <see cref="MembershipProtocol.Operations"/>) on the
    /// table this Development primary keeps. Table errors come back as <c>-MEMBERSHIP message</c>.
    /// </summary>
    public static void Table(ClientSession session, RespRequest request)
    {
        var writer = session.Writer;
        var tables = session.Silo.MembershipTables;
        if (tables is null || !tables.IsPrimary)
        {
            writer.WriteError("ERR this silo does not keep the membership table: it is not the Development primary");
            return;
        }

        MembershipRequest? body;
        try
        {
            body = JsonSerializer.Deserialize(request[2], MembershipJson.Default.MembershipRequest);
        }
        catch (JsonException exception)
        {
            writer.WriteError($"ERR malformed membership request: {exception.Message}");
            return;
        }

        if (string.IsNullOrEmpty(body?.ClusterId))
        {
            writer.WriteError("ERR a membership request needs a cluster id");
            return;
        }

        try
        {
            Run(writer, tables.For(body.ClusterId), request[1], body);
        }
        catch (InvalidOperationException exception)
        {
            writer.WriteError($"{MembershipProtocol.TableErrorCode} {exception.Message}");
        }
        catch (ArgumentException exception)
        {
            writer.WriteError($"ERR {exception.Message}");
        }
    }

    private static void Run(RespWriter writer, InMemoryMembershipTable table, ReadOnlySpan<byte> operation, MembershipRequest body)
    {
        var none = CancellationToken.None;
        if (Arguments.Is(operation, MembershipProtocol.Operations.ReadAll))
        {
            writer.WriteBulkString(JsonSerializer.SerializeToUtf8Bytes(Completed(table.ReadAllAsync(none)), MembershipJson.Default.MembershipSnapshot));
        }
        else if (Arguments.Is(operation, MembershipProtocol.Operations.Insert))
        {
            writer.WriteInteger(Completed(table.TryInsertAsync(Required(body.Entry), body.ExpectedVersion, none)) ? 1 : 0);
        }
        else if (Arguments.Is(operation, MembershipProtocol.Operations.Update))
        {
            writer.WriteInteger(Completed(table.TryUpdateAsync(Required(body.Entry), Required(body.ETag), body.ExpectedVersion, none)) ? 1 : 0);
        }
        else if (Arguments.Is(operation, MembershipProtocol.Operations.IAmAlive))
        {
            Completed(table.UpdateIAmAliveAsync(Required(body.SiloId), body.At, none));
            writer.WriteOk();
        }
        else if (Arguments.Is(operation, MembershipProtocol.Operations.DeleteDefunct))
        {
            writer.WriteInteger(Completed(table.DeleteDefunctAsync(body.At, none)));
        }
        else if (Arguments.Is(operation, MembershipProtocol.Operations.Initialize))
        {
            Completed(table.InitializeAsync(none));
            writer.WriteOk();
        }
        else if (Arguments.Is(operation, MembershipProtocol.Operations.DeleteCluster))
        {
            Completed(table.DeleteClusterAsync(none));
            writer.WriteOk();
        }
        else
        {
            writer.WriteError($"ERR unknown membership operation '{Encoding.UTF8.GetString(operation)}'");
        }
    }

    private static T Required<T>(T? value)
        where T : class => value ?? throw new ArgumentException("The membership request lacks a field this operation needs.");

    // The in-memory table finishes every operation before returning its task.
    private static T Completed<T>(Task<T> task) => task.IsCompleted ? task.GetAwaiter().GetResult() : throw NotCompleted();

    private static void Completed(Task task)
    {
        if (!task.IsCompleted)
        {
            throw NotCompleted();
        }

        task.GetAwaiter().GetResult();
    }

    private static InvalidOperationException NotCompleted() => new("The in-memory membership table did not complete synchronously.");
}
