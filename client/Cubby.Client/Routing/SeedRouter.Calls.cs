using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using Cubby.Client.Connections;

namespace Cubby.Client.Routing;

/// <summary>
/// Sending a call to the preferred endpoint, and sending it again to the next one when its connection failed: always
/// when the command never reached the socket, and, when it was written but the connection was lost before the reply,
/// only when <see cref="KeyCommand.IsIdempotent"/>. A call goes to each endpoint that is not down at most once; when
/// every endpoint is down or has failed it, it goes once more to the first, whose connection waits up to the connect
/// timeout for its reconnect (so a single silo's dropped connection costs an idempotent call nothing), and then fails
/// with a <see cref="CubbyConnectionException"/>. All of it within the call's
/// <see cref="CubbyClientOptions.OperationTimeout"/> counted from its start. A timeout, an error reply or a
/// cancellation is never retried.
/// </summary>
internal sealed partial class SeedRouter
{
    public ValueTask<T> SendAsync<T>(KeyCommand command, ReplyParser<T> parser, object? state, CancellationToken cancellationToken)
    {
        var started = _time.GetTimestamp();
        var index = Pick(null);
        if (index >= 0 && _connections[index] is { IsConnected: true } connection)
        {
            var call = connection.ExecuteAsync(command.Encode(), parser, state, cancellationToken);
            return call.IsCompletedSuccessfully ? call : AwaitOrRetryAsync(call, index, command, parser, state, started, cancellationToken);
        }

        return RetryAsync(command, parser, state, started, new bool[_endpoints.Length], null, cancellationToken);
    }

    /// <summary>The same, blocking the calling thread without needing the thread pool.</summary>
    public T Send<T>(KeyCommand command, ReplyParser<T> parser, object? state)
    {
        var started = _time.GetTimestamp();
        var index = Pick(null);
        if (index >= 0 && _connections[index] is { IsConnected: true } connection)
        {
            try
            {
                return connection.Execute(command.Encode(), parser, state);
            }
            catch (CubbyConnectionException failure) when (MayRetry(failure, command))
            {
                return Retry(command, parser, state, started, Tried(index), failure);
            }
        }

        return Retry(command, parser, state, started, new bool[_endpoints.Length], null);
    }

    private static bool MayRetry(CubbyConnectionException failure, KeyCommand command) =>
        failure.Failure == CallFailure.NotSent || (failure.Failure == CallFailure.LostInFlight && command.IsIdempotent);

    private bool[] Tried(int index)
    {
        var tried = new bool[_endpoints.Length];
        tried[index] = true;
        return tried;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<T> AwaitOrRetryAsync<T>(ValueTask<T> call, int index, KeyCommand command, ReplyParser<T> parser, object? state, long started, CancellationToken cancellationToken)
    {
        try
        {
            return await call.ConfigureAwait(false);
        }
        catch (CubbyConnectionException failure) when (MayRetry(failure, command))
        {
            return await RetryAsync(command, parser, state, started, Tried(index), failure, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Sends to each endpoint not <paramref name="tried"/> and not down, preferred first, then once more to the first
    /// endpoint, until the call succeeds, fails in a way not worth retrying, or its time is up (then
    /// <paramref name="failure"/>, the last retryable failure, is rethrown). An endpoint still making its first
    /// connection is waited for, up to the connect timeout.
    /// </summary>
    private async ValueTask<T> RetryAsync<T>(KeyCommand command, ReplyParser<T> parser, object? state, long started, bool[] tried, CubbyConnectionException? failure, CancellationToken cancellationToken)
    {
        var lastChance = false;
        while (true)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            if (failure is not null && TimeLeft(started) <= TimeSpan.Zero)
            {
                ExceptionDispatchInfo.Throw(failure);
            }

            CubbyConnection connection;
            var index = Pick(tried);
            if (index >= 0)
            {
                tried[index] = true;
                connection = _connections[index]!;
                if (!connection.FirstAttempt.IsCompleted)
                {
                    await WaitForFirstAttemptAsync(connection, cancellationToken).ConfigureAwait(false);
                }

                if (connection.IsDown || !connection.FirstAttempt.IsCompleted)
                {
                    failure = connection.NotConnected();
                    continue;
                }
            }
            else
            {
                connection = LastChance(ref lastChance) ?? throw NoSiloCanTake(failure);
            }

            try
            {
                return await connection.ExecuteAsync(command.Encode(), parser, state, cancellationToken).ConfigureAwait(false);
            }
            catch (CubbyConnectionException retryable) when (MayRetry(retryable, command))
            {
                failure = retryable;
            }
        }
    }

    /// <summary><see cref="RetryAsync"/> on the calling thread.</summary>
    private T Retry<T>(KeyCommand command, ReplyParser<T> parser, object? state, long started, bool[] tried, CubbyConnectionException? failure)
    {
        var lastChance = false;
        while (true)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            if (failure is not null && TimeLeft(started) <= TimeSpan.Zero)
            {
                ExceptionDispatchInfo.Throw(failure);
            }

            CubbyConnection connection;
            var index = Pick(tried);
            if (index >= 0)
            {
                tried[index] = true;
                connection = _connections[index]!;

                // Woken by the connection's reader thread directly: no thread-pool thread is needed.
                if (!connection.FirstAttempt.Wait(_options.ConnectTimeout) || connection.IsDown)
                {
                    failure = connection.NotConnected();
                    continue;
                }
            }
            else
            {
                connection = LastChance(ref lastChance) ?? throw NoSiloCanTake(failure);
            }

            try
            {
                return connection.Execute(command.Encode(), parser, state);
            }
            catch (CubbyConnectionException retryable) when (MayRetry(retryable, command))
            {
                failure = retryable;
            }
        }
    }

    /// <summary>
    /// Every endpoint is down or has failed the call: the first one's connection, once per call, which waits up to the
    /// connect timeout for its reconnect before failing the call as not sent; null the second time.
    /// </summary>
    private CubbyConnection? LastChance(ref bool used)
    {
        if (used || _endpoints.Length == 0)
        {
            return null;
        }

        used = true;
        return Volatile.Read(ref _connections[0]) ?? Connect(0);
    }

    private TimeSpan TimeLeft(long started) => _options.OperationTimeout - _time.GetElapsedTime(started);

    private async Task WaitForFirstAttemptAsync(CubbyConnection connection, CancellationToken cancellationToken)
    {
        try
        {
            await connection.FirstAttempt.WaitAsync(_options.ConnectTimeout, _time, cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            // Still connecting: the caller moves on.
        }
    }
}
