using Cubby.Sharding;

namespace Cubby.Tests.Interfaces;

/// <summary>What <see cref="ShardCallRetry"/> tries again: failures of reaching a shard, not the caller's own cancellation.</summary>
public sealed class ShardCallRetryTests
{
    private static readonly TimeSpan Budget = TimeSpan.FromSeconds(5);

    [Fact]
    public async Task A_cancellation_the_caller_did_not_ask_for_is_tried_again()
    {
        // A silo that gives up activating a shard (its directory registration cancelled) answers with a cancellation.
        var attempts = 0;
        var result = await ShardCallRetry.CallAsync(
            0,
            _ => ++attempts == 1 ? ValueTask.FromException<int>(new OperationCanceledException()) : ValueTask.FromResult(attempts),
            Budget);

        Assert.Equal(2, result);
    }

    [Fact]
    public async Task The_callers_own_cancellation_is_not_tried_again()
    {
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();
        var attempts = 0;

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await ShardCallRetry.CallAsync(
            0,
            _ =>
            {
                attempts++;
                return ValueTask.FromException<int>(new OperationCanceledException(cancelled.Token));
            },
            Budget,
            cancellationToken: cancelled.Token));
        Assert.Equal(1, attempts);
    }

    [Fact]
    public void A_refused_call_is_not_transient()
    {
        Assert.False(ShardCallRetry.IsTransient(new ArgumentException("bad key"), CancellationToken.None));
        Assert.True(ShardCallRetry.IsTransient(new TimeoutException(), CancellationToken.None));
    }
}
