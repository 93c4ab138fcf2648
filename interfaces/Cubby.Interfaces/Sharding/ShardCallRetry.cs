using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Cubby.Sharding;

/// <summary>
/// Calls a shard grain and tries again while the call fails only because the shard's silo is gone, stopping or
/// unreachable: Orleans re-places the shard once membership settles, and a shard that migrates receives the call where
/// it lands. Front doors and clients call shard grains through this, so a silo leaving costs callers a wait, not an error.
/// </summary>
public static class ShardCallRetry
{
    private static readonly TimeSpan FirstBackoff = TimeSpan.FromMilliseconds(20);
    private static readonly TimeSpan LongestBackoff = TimeSpan.FromMilliseconds(500);

    /// <summary>
    /// Runs <paramref name="call"/>, again after a growing pause (20 ms doubling to 500 ms) each time it fails
    /// transiently, until <paramref name="timeout"/> has passed; then the last failure is thrown. The pauses are on the
    /// real clock: they wait out membership and migration, which run on real time.
    /// </summary>
    /// <param name="call">The grain call; called once per attempt.</param>
    /// <param name="timeout">How long to keep trying, counted from the first attempt.</param>
    /// <param name="retrying">Told of each failure about to be retried (for counters); may be null.</param>
    /// <returns>The call's result.</returns>
    public static Task<T> CallAsync<T>(Func<Task<T>> call, TimeSpan timeout, Action<Exception>? retrying = null)
    {
        ArgumentNullException.ThrowIfNull(call);
        return CallAsync(call, static c => new ValueTask<T>(c()), timeout, retrying).AsTask();
    }

    /// <summary>
    /// The same for a call that takes its arguments as <paramref name="state"/>, so a static lambda serves every call
    /// without allocating, and that the caller may stop waiting for.
    /// </summary>
    /// <typeparam name="TState">What the call needs.</typeparam>
    /// <typeparam name="T">The call's result.</typeparam>
    /// <param name="state">Passed to <paramref name="call"/>.</param>
    /// <param name="call">The grain call; called once per attempt.</param>
    /// <param name="timeout">How long to keep trying, counted from the first attempt.</param>
    /// <param name="retrying">Told of each failure about to be retried (for counters); may be null.</param>
    /// <param name="cancellationToken">Stops the wait (a call already sent may still be applied).</param>
    /// <returns>The call's result.</returns>
    public static ValueTask<T> CallAsync<TState, T>(TState state, Func<TState, ValueTask<T>> call, TimeSpan timeout, Action<Exception>? retrying = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(call);
        ValueTask<T> attempt;
        try
        {
            attempt = call(state);
        }
        catch (Exception exception) when (IsTransient(exception, cancellationToken))
        {
            attempt = ValueTask.FromException<T>(exception);
        }

        return attempt.IsCompletedSuccessfully && !cancellationToken.IsCancellationRequested
            ? attempt
            : RetryAsync(attempt, state, call, timeout, retrying, cancellationToken);
    }

    /// <summary>Whether <paramref name="exception"/> says only that the shard could not be reached for now.</summary>
    public static bool IsTransient(Exception exception) =>
        exception is SiloUnavailableException or OrleansMessageRejectionException or TimeoutException or GatewayTooBusyException
            or Orleans.Runtime.Messaging.ConnectionFailedException or SiloFencedException;

    /// <summary>
    /// Whether <paramref name="exception"/> says only that the shard could not be reached for now, counting a
    /// cancellation that <paramref name="cancellationToken"/> did not ask for: the silo gave up activating the shard
    /// (its directory registration cancelled while the directory moved), and the next try activates it afresh.
    /// </summary>
    /// <param name="exception">What the call threw.</param>
    /// <param name="cancellationToken">The caller's token.</param>
    /// <returns>True when trying again may succeed.</returns>
    public static bool IsTransient(Exception exception, CancellationToken cancellationToken) =>
        IsTransient(exception) || (exception is OperationCanceledException && !cancellationToken.IsCancellationRequested);

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private static async ValueTask<T> RetryAsync<TState, T>(
        ValueTask<T> attempt, TState state, Func<TState, ValueTask<T>> call, TimeSpan timeout, Action<Exception>? retrying, CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        var backoff = FirstBackoff;
        while (true)
        {
            try
            {
                return cancellationToken.CanBeCanceled
                    ? await attempt.AsTask().WaitAsync(cancellationToken).ConfigureAwait(false)
                    : await attempt.ConfigureAwait(false);
            }
            catch (Exception exception) when (IsTransient(exception, cancellationToken) && Stopwatch.GetElapsedTime(started) + backoff < timeout)
            {
                retrying?.Invoke(exception);
                await Task.Delay(backoff, TimeProvider.System, cancellationToken).ConfigureAwait(false);
                backoff = TimeSpan.FromTicks(Math.Min(backoff.Ticks * 2, LongestBackoff.Ticks));
            }

            try
            {
                attempt = call(state);
            }
            catch (Exception exception) when (IsTransient(exception, cancellationToken))
            {
                attempt = ValueTask.FromException<T>(exception);
            }
        }
    }
}
