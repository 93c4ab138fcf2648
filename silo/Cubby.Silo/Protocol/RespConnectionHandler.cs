using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using Cubby.Diagnostics;
using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Silo.Commands;
using Cubby.Silo.Diagnostics;
using Cubby.Silo.Hosting;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Connections.Features;

namespace Cubby.Silo.Protocol;

/// <summary>
/// Serves one RESP connection: parses every complete command in what has arrived, runs each, and flushes all their
/// replies at once, so pipelined commands cost one write. A protocol error closes only this connection.
/// </summary>
internal sealed partial class RespConnectionHandler(SiloRuntime silo, PipelinedConnections pipelined, ILogger<RespConnectionHandler> logger) : ConnectionHandler
{
    /// <summary>Replies are flushed early once this much is buffered, so a long pipeline cannot hoard memory.</summary>
    private const int FlushThreshold = 64 * 1024;

    /// <summary>
    /// Before AUTH a client can send only what authenticating takes, as in Redis, so an unauthenticated client cannot
    /// make the silo buffer large requests.
    /// </summary>
    private static readonly RespLimits UnauthenticatedLimits = new() { MaxArrayLength = 16, MaxBulkBytes = 16 * 1024, MaxRequestBytes = 64 * 1024 };

    private readonly RespLimits _limits = new()
    {
        MaxBulkBytes = silo.Options.MaxValueBytes,
        MaxArrayLength = silo.Options.MaxArguments,
        MaxRequestBytes = (int)silo.Options.MaxRequestBytes,
    };

    public override async Task OnConnectedAsync(ConnectionContext connection)
    {
        var input = connection.Transport.Input;
        var output = connection.Transport.Output;
        var session = new ClientSession(silo, output, connection.RemoteEndPoint?.ToString() ?? "unknown");
        session.Attach(input, reason =>
        {
            Log.SubscriberFellBehind(logger, session.Id, reason);
            connection.Abort(new ConnectionAbortedException(reason));
        });
        silo.Clients.Add(session);
        silo.Statistics.ConnectionReceived();
        Log.ClientConnected(logger, session.Id, session.RemoteEndPoint);
        using var request = new RespRequest();
        BatchWarmer? warmer = null;

        // On shutdown the server asks each connection to close; an idle client would otherwise hold the stop up until
        // its timeout and then be reset. Ending the pending read lets the current batch finish and the connection close.
        var lifetime = connection.Features.Get<IConnectionLifetimeNotificationFeature>();
        using var closing = lifetime?.ConnectionClosedRequested.Register(static state => ((ClientSession)state!).RequestShutdown(), session);
        var pipelining = false;
        var drained = true;
        var lastRead = Stopwatch.GetTimestamp();
        try
        {
            while (!session.CloseRequested)
            {
                // No ConnectionClosed token: it fires as soon as the client half-closes, which would drop the commands
                // it sent before that are still buffered. A closed or aborted connection completes the pipe instead.
                var pending = input.ReadAsync();
                var waited = !pending.IsCompleted;
                var read = await pending.ConfigureAwait(false);
                var readAt = Stopwatch.GetTimestamp();
                if (drained)
                {
                    // Bytes waited for arrived as the read completed; bytes already there, after the last read took
                    // what was there then.
                    session.ArrivedBy = waited ? readAt : lastRead;
                }

                lastRead = readAt;
                if (pipelined.ShouldOffload(pipelining))
                {
                    // Queued to the pool without allocating: the async method's state machine is the work item.
                    await Task.Yield();
                }

                var buffer = read.Buffer;
                var (consumed, error, paused, executed) = ExecuteAll(session, request, buffer, output, pipelining ? (warmer ??= new BatchWarmer(silo, _limits)) : null);
                pipelined.Ran(ref pipelining, executed);

                // Paused on a full reply buffer or a deferred command: the rest is already here, so don't wait for
                // more bytes to resume. Bytes left over keep the arrival of the read that brought them.
                input.AdvanceTo(consumed, paused ? consumed : buffer.End);
                drained = buffer.Slice(consumed).IsEmpty;
                if (!await SettledAsync(session, connection).ConfigureAwait(false))
                {
                    break;
                }

                if (error is not null)
                {
                    silo.Statistics.ProtocolError();
                    Log.ProtocolError(logger, session.Id, error);
                    session.Writer.WriteError("ERR " + error);
                    await output.FlushAsync().ConfigureAwait(false);
                    break;
                }

                if (session.TakeDeferred() is { } deferred)
                {
                    // Replies before it go out now rather than wait with it.
                    await output.FlushAsync().ConfigureAwait(false);
                    await session.AwaitDeferredAsync(deferred).ConfigureAwait(false);

                    // Counted now, not with the next batch, which a client waiting for this reply may never send.
                    session.PublishStatistics(0);
                }

                // A deferred command may have run parts on this silo's shards too.
                if (!await SettledAsync(session, connection).ConfigureAwait(false))
                {
                    break;
                }

                // A client that waits for each reply sends its next command only once these replies are out: when a
                // long batch leaves no bytes waiting, whatever comes next arrived after now, and must not be judged late
                // for the time this batch took (CallTimeout counts from arrival).
                if (drained && Stopwatch.GetElapsedTime(lastRead) > silo.Options.Clustering.CallTimeout / 4 && NothingWaiting(input))
                {
                    lastRead = Stopwatch.GetTimestamp();
                }

                // Pub/sub messages and invalidations go after the replies of the batch they came during; the pending
                // read was cancelled to wake the connection for them.
                session.WritePushes();
                var flush = await output.FlushAsync().ConfigureAwait(false);
                if ((read.IsCompleted && !paused) || (read.IsCanceled && session.ShutdownRequested) || flush.IsCompleted)
                {
                    break;
                }
            }
        }
        catch (OperationCanceledException)
        {
            // The connection closed while a read was pending.
        }
        catch (ConnectionResetException)
        {
            // The client went away; nothing to answer.
        }
        finally
        {
            pipelined.Closed(ref pipelining);
            warmer?.Dispose();
            session.PublishStatistics(0);
            session.OnClosed();
            Transactions.WatchCommands.Release(session);
            silo.Clients.Remove(session);
            Log.ClientDisconnected(logger, session.Id);
            await input.CompleteAsync().ConfigureAwait(false);
            await output.CompleteAsync().ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Waits until the shards this batch's commands ran on settled what they changed (their replicas applied it, the
    /// near caches that had read it dropped it): a reply goes out only once what it reports would survive this silo. When a shard can no longer acknowledge (it was fenced),
    /// the connection is aborted with its replies unsent, and false returned: the client sees a dropped connection,
    /// never a write acknowledged that may be lost.
    /// </summary>
    private async ValueTask<bool> SettledAsync(ClientSession session, ConnectionContext connection)
    {
        if (!session.Context.AwaitsSettling)
        {
            return true;
        }

        try
        {
            await session.Context.WhenSettledAsync().ConfigureAwait(false);
            return true;
        }
        catch (InvalidOperationException exception)
        {
            Log.ReplicationFailed(logger, exception, session.Id);
            connection.Abort(new ConnectionAbortedException(exception.Message, exception));
            return false;
        }
    }

    /// <summary>
    /// Whether the client has sent nothing since the last read. Looks without taking: data, a completion or a
    /// cancellation (which wakes the connection for pushes or shutdown, so it is raised again) stay for the next read.
    /// </summary>
    private static bool NothingWaiting(PipeReader input)
    {
        if (!input.TryRead(out var result))
        {
            return true;
        }

        input.AdvanceTo(result.Buffer.Start);
        if (result.IsCanceled)
        {
            input.CancelPendingRead();
        }

        return false;
    }

    /// <summary>Runs every complete command at the start of <paramref name="buffer"/>; returns where it stopped and how many ran.</summary>
    private (SequencePosition Consumed, string? Error, bool Paused, int Executed) ExecuteAll(ClientSession session, RespRequest request, ReadOnlySequence<byte> buffer, PipeWriter output, BatchWarmer? warmer)
    {
        var consumed = buffer.Start;
        var executed = 0;
        var warmedAhead = 0;
        var clock = Stopwatch.GetTimestamp();

        // Commands that waited past the call timeout (behind a slow one) are answered with an error, not run.
        var late = Stopwatch.GetElapsedTime(session.ArrivedBy, clock) > silo.Options.Clustering.CallTimeout;
        try
        {
            while (!session.CloseRequested)
            {
                var remaining = buffer.Slice(consumed);
                var limits = session.IsAuthenticated ? _limits : UnauthenticatedLimits;
                if (warmedAhead == 0 && warmer is not null && session.IsAuthenticated)
                {
                    warmedAhead = warmer.Warm(remaining);
                }

                var status = RespRequestParser.TryParse(remaining, request, limits, out var next, out var error);
                if (status == RespParseStatus.Error)
                {
                    return (consumed, error, false, executed);
                }

                consumed = next;
                if (status == RespParseStatus.Incomplete)
                {
                    if (buffer.Slice(consumed).Length > silo.Options.MaxRequestBytes)
                    {
                        return (consumed, $"Protocol error: request larger than {silo.Options.MaxRequestBytes} bytes (Cubby:MaxRequestBytes)", false, executed);
                    }

                    break;
                }

                executed++;
                warmedAhead--;
                if (late && !RunsLate(session, request))
                {
                    session.Writer.WriteError(SiloErrors.WaitedPastCallTimeout(silo.Options.Clustering.CallTimeout));
                    continue;
                }

                clock = Execute(session, request, clock);
                if (session.HasDeferred)
                {
                    // It runs on after this batch's bytes are released, and may still read its arguments.
                    request.Own();
                    return (consumed, null, true, executed);
                }

                if (output.CanGetUnflushedBytes ? output.UnflushedBytes >= FlushThreshold : executed >= 1024)
                {
                    return (consumed, null, true, executed);
                }
            }
        }
        finally
        {
            session.PublishStatistics(executed);
        }

        return (consumed, null, false, executed);
    }

    /// <summary>
    /// Whether a command that waited past the call timeout still runs: only EXEC or DISCARD of a transaction, which a late
    /// command aborts (as a command refused while queueing does), so that EXEC then runs none of it.
    /// </summary>
    private bool RunsLate(ClientSession session, RespRequest request)
    {
        if (session.Transaction is not { } transaction)
        {
            return false;
        }

        transaction.Abort();
        return silo.Commands.Find(request[0]) is { ControlsTransaction: true };
    }

    /// <summary>Runs one command whose latency counts from <paramref name="started"/>; returns when it finished.</summary>
    private long Execute(ClientSession session, RespRequest request, long started)
    {
        try
        {
            return CommandDispatcher.Execute(session, request, started);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            // One failing command must not take the connection, or the silo, down with it.
            Log.CommandFailed(logger, exception, session.Id, session.LastCommand);
            session.Writer.WriteError("ERR internal error: " + exception.Message);
            return Stopwatch.GetTimestamp();
        }
    }

    private static partial class Log
    {
        [LoggerMessage(LogEvents.ClientConnected, LogLevel.Debug, "Client {ClientId} connected from {RemoteEndPoint}")]
        public static partial void ClientConnected(ILogger logger, long clientId, string remoteEndPoint);

        [LoggerMessage(LogEvents.ClientDisconnected, LogLevel.Debug, "Client {ClientId} disconnected")]
        public static partial void ClientDisconnected(ILogger logger, long clientId);

        [LoggerMessage(LogEvents.ProtocolError, LogLevel.Information, "Closing client {ClientId} after a protocol error: {Error}")]
        public static partial void ProtocolError(ILogger logger, long clientId, string? error);

        [LoggerMessage(LogEvents.ReplicationFailed, LogLevel.Warning, "Closing client {ClientId} unanswered: a shard its commands ran on can no longer acknowledge writes")]
        public static partial void ReplicationFailed(ILogger logger, Exception exception, long clientId);

        [LoggerMessage(LogEvents.SubscriberFellBehind, LogLevel.Warning, "Closing client {ClientId}: {Reason}")]
        public static partial void SubscriberFellBehind(ILogger logger, long clientId, string reason);

        [LoggerMessage(LogEvents.CommandFailed, LogLevel.Error, "Command {Command} of client {ClientId} failed")]
        public static partial void CommandFailed(ILogger logger, Exception exception, long clientId, string? command);
    }
}
