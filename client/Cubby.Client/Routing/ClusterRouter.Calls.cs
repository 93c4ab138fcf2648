using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using Cubby.Client.Connections;

namespace Cubby.Client.Routing;

/// <summary>
/// Sending a key's command to its owner, and sending it again when its connection failed: always when the command
/// never reached the socket, and, when it was written but the connection was lost before the reply, only when
/// <see cref="KeyCommand.IsIdempotent"/>. A retry goes to the owner in the newest view (waiting for a refresh when the
/// view has not changed since the failure) within the call's <see cref="CubbyClientOptions.OperationTimeout"/>
/// counted from its start. A timeout, an error reply or a cancellation is never retried.
/// </summary>
internal sealed partial class ClusterRouter
{
    public ValueTask<T> SendAsync<T>(KeyCommand command, ReplyParser<T> parser, object? state, CancellationToken cancellationToken)
    {
        var started = _time.GetTimestamp();
        if (_routes is { } routes && routes.OwnerOf(command.Key) is { IsDown: false } connection)
        {
            var call = connection.ExecuteAsync(command.Encode(), parser, state, cancellationToken);
            return call.IsCompletedSuccessfully ? call : AwaitOrRetryAsync(call, routes, command, parser, state, started, cancellationToken);
        }

        return RetryAsync(command, parser, state, started, null, null, cancellationToken);
    }

    /// <summary>The same, blocking the calling thread without needing the thread pool.</summary>
    public T Send<T>(KeyCommand command, ReplyParser<T> parser, object? state)
    {
        var started = _time.GetTimestamp();
        if (_routes is { } routes && routes.OwnerOf(command.Key) is { IsDown: false } connection)
        {
            try
            {
                return connection.Execute(command.Encode(), parser, state);
            }
            catch (CubbyConnectionException failure) when (MayRetry(failure, command))
            {
                return Retry(command, parser, state, started, failure, routes);
            }
        }

        return Retry(command, parser, state, started, null, null);
    }

    private static bool MayRetry(CubbyConnectionException failure, KeyCommand command) =>
        failure.Failure == CallFailure.NotSent || (failure.Failure == CallFailure.LostInFlight && command.IsIdempotent);

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<T> AwaitOrRetryAsync<T>(ValueTask<T> call, Routes routes, KeyCommand command, ReplyParser<T> parser, object? state, long started, CancellationToken cancellationToken)
    {
        try
        {
            return await call.ConfigureAwait(false);
        }
        catch (CubbyConnectionException failure) when (MayRetry(failure, command))
        {
            return await RetryAsync(command, parser, state, started, failure, routes, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Routes and sends until the call succeeds, fails in a way not worth retrying, or its time is up. With no view
    /// yet (the first call), it waits for the first read of the view and fails at once when no silo answered.
    /// <c>failure</c> is the last retryable failure, rethrown when time is up; <c>failedRoutes</c> the routes it
    /// happened under: the next attempt waits for newer ones, or for a refresh.
    /// </summary>
    private async ValueTask<T> RetryAsync<T>(KeyCommand command, ReplyParser<T> parser, object? state, long started, CubbyConnectionException? failure, Routes? failedRoutes, CancellationToken cancellationToken)
    {
        while (true)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            var routes = _routes;
            if (routes is null || ReferenceEquals(routes, failedRoutes))
            {
                var cycle = _refresher.Request();
                if (routes is null)
                {
                    await cycle.Completed.WaitAsync(cancellationToken).ConfigureAwait(false);
                }
                else
                {
                    var left = TimeLeft(started);
                    if (left <= TimeSpan.Zero || !await CompletesWithinAsync(cycle.Completed, left, cancellationToken).ConfigureAwait(false))
                    {
                        ExceptionDispatchInfo.Throw(failure!);
                    }
                }

                ObjectDisposedException.ThrowIf(_disposed, this);
                routes = _routes ?? throw cycle.Failure!;
            }

            if (failure is not null && TimeLeft(started) <= TimeSpan.Zero)
            {
                ExceptionDispatchInfo.Throw(failure);
            }

            var connection = routes.OwnerOf(command.Key);
            if (connection.IsDown)
            {
                (failure, failedRoutes) = (connection.NotConnected(), routes);
                continue;
            }

            try
            {
                return await connection.ExecuteAsync(command.Encode(), parser, state, cancellationToken).ConfigureAwait(false);
            }
            catch (CubbyConnectionException retryable) when (MayRetry(retryable, command))
            {
                (failure, failedRoutes) = (retryable, routes);
            }
        }
    }

    /// <summary><see cref="RetryAsync"/> on the calling thread.</summary>
    private T Retry<T>(KeyCommand command, ReplyParser<T> parser, object? state, long started, CubbyConnectionException? failure, Routes? failedRoutes)
    {
        while (true)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            var routes = _routes;
            if (routes is null || ReferenceEquals(routes, failedRoutes))
            {
                var cycle = _refresher.Request();
                if (routes is null)
                {
                    cycle.Wait(Timeout.InfiniteTimeSpan);
                }
                else
                {
                    var left = TimeLeft(started);
                    if (left <= TimeSpan.Zero || !cycle.Wait(left))
                    {
                        ExceptionDispatchInfo.Throw(failure!);
                    }
                }

                ObjectDisposedException.ThrowIf(_disposed, this);
                routes = _routes ?? throw cycle.Failure!;
            }

            if (failure is not null && TimeLeft(started) <= TimeSpan.Zero)
            {
                ExceptionDispatchInfo.Throw(failure);
            }

            var connection = routes.OwnerOf(command.Key);
            if (connection.IsDown)
            {
                (failure, failedRoutes) = (connection.NotConnected(), routes);
                continue;
            }

            try
            {
                return connection.Execute(command.Encode(), parser, state);
            }
            catch (CubbyConnectionException retryable) when (MayRetry(retryable, command))
            {
                (failure, failedRoutes) = (retryable, routes);
            }
        }
    }

    private TimeSpan TimeLeft(long started) => _options.OperationTimeout - _time.GetElapsedTime(started);

    private async Task<bool> CompletesWithinAsync(Task task, TimeSpan timeout, CancellationToken cancellationToken)
    {
        try
        {
            await task.WaitAsync(timeout, _time, cancellationToken).ConfigureAwait(false);
            return true;
        }
        catch (TimeoutException)
        {
            return false;
        }
    }
}
