using Orleans.Runtime;

namespace Cubby.Sharding;

/// <summary>
/// The moment a caller stops waiting for a call, in UTC ticks on the real clock, carried with the call so that no shard
/// applies it later. Without it a write could land long after its caller gave up and moved on: held in a link cut by a
/// partition and delivered when it heals, or retried by a silo for a client that reconnected, it would overwrite what
/// the caller wrote next (docs/faults.md). The client's and the silos' clocks are taken to agree to well within a call
/// timeout, as NTP keeps them in one data centre.
/// </summary>
/// <remarks>
/// A batch carries its writes' deadline as an argument (<see cref="IShardBatchService.Run"/>); a single shard-grain call
/// carries it in its <see cref="RequestContext"/> (<see cref="Carrying{TState, TResult}"/>), read by the shard once, in
/// the call's turn, and not passed on to the calls the shard makes.
/// </remarks>
public static class CallDeadline
{
    /// <summary>The <see cref="RequestContext"/> key of a single call's deadline.</summary>
    public const string ContextKey = "cubby-deadline";

    /// <summary>No deadline.</summary>
    public const long None = 0;

    /// <summary>The deadline <paramref name="timeout"/> from now.</summary>
    /// <param name="timeout">How long the caller waits.</param>
    /// <returns>The deadline, in UTC ticks.</returns>
    public static long After(TimeSpan timeout) => TimeProvider.System.GetUtcNow().UtcTicks + timeout.Ticks;

    /// <summary>Whether <paramref name="deadline"/> has passed (never, for <see cref="None"/>).</summary>
    /// <param name="deadline">The deadline, in UTC ticks.</param>
    /// <returns>True once it has.</returns>
    public static bool HasPassed(long deadline) => deadline != None && TimeProvider.System.GetUtcNow().UtcTicks > deadline;

    /// <summary>
    /// Makes the grain call <paramref name="call"/> with <paramref name="deadline"/> in its request context, which the
    /// call's message takes as it is sent; the caller's context is as before once it returns.
    /// </summary>
    /// <typeparam name="TState">What the call needs.</typeparam>
    /// <typeparam name="TResult">The call's result.</typeparam>
    /// <param name="deadline">The deadline, in UTC ticks.</param>
    /// <param name="state">Passed to <paramref name="call"/>.</param>
    /// <param name="call">The grain call.</param>
    /// <returns>What <paramref name="call"/> returned.</returns>
    public static TResult Carrying<TState, TResult>(long deadline, TState state, Func<TState, TResult> call)
    {
        ArgumentNullException.ThrowIfNull(call);
        RequestContext.Set(ContextKey, deadline);
        try
        {
            return call(state);
        }
        finally
        {
            RequestContext.Remove(ContextKey);
        }
    }

    /// <summary>
    /// Takes the deadline of the call being run out of its request context, so calls it makes do not carry it, and
    /// throws when it has passed.
    /// </summary>
    /// <param name="what">What the call is, for the message.</param>
    /// <exception cref="CallDeadlineException">The caller no longer waits for the call.</exception>
    public static void ThrowIfPassed(string what)
    {
        if (RequestContext.Get(ContextKey) is long deadline)
        {
            RequestContext.Remove(ContextKey);
            ThrowIfPassed(deadline, what);
        }
    }

    /// <summary>Throws when <paramref name="deadline"/> has passed.</summary>
    /// <param name="deadline">The deadline, in UTC ticks.</param>
    /// <param name="what">What the call is, for the message.</param>
    /// <exception cref="CallDeadlineException">The caller no longer waits for the call.</exception>
    public static void ThrowIfPassed(long deadline, string what)
    {
        if (HasPassed(deadline))
        {
            throw new CallDeadlineException(
                $"{what} reached its shard {(TimeProvider.System.GetUtcNow().UtcTicks - deadline) / TimeSpan.TicksPerMillisecond} ms after its caller's deadline, so it was not run: the caller no longer waits for it.");
        }
    }
}
