using System.Diagnostics;
using System.Runtime.CompilerServices;
using Cubby.Client.Gateways;
using Cubby.Sharding;

namespace Cubby.Client.Shards;

/// <summary>
/// Calls the shard grain of a slot: connecting first when the client has its own gateway connection, trying again
/// while a silo leaves or cannot be reached, and turning what is left of a failure into an exception that names it.
/// With <paramref name="batches"/>, reads and writes go in batches to the gateway of the shard's silo first.
/// </summary>
internal sealed class ShardCalls(IGrainFactory grains, int slotCount, TimeSpan timeout, GatewayConnection? gateway, SiloBatches? batches = null)
{
    private readonly IShardGrain?[] _grains = new IShardGrain?[slotCount];

    public ShardMap Map { get; } = new(slotCount);

    public IShardGrain GrainOf(int slot) => _grains[slot] ??= grains.GetGrain<IShardGrain>(slot);

    /// <summary>The batches, when calls are coalesced.</summary>
    public SiloBatches? Batches => batches;

    /// <summary>
    /// Runs <paramref name="operation"/> in a batch to the gateway of its shard's silo when one is known and connected,
    /// and as the single grain call <paramref name="single"/> when not, or when the batch did not run it; the batch's
    /// wait counts against the call's timeout, and both carry its deadline (<see cref="CallDeadline"/>), past which no
    /// shard runs it. Cancelling stops the caller's wait, and no attempt is sent after it; one already sent may still
    /// run, until the deadline.
    /// </summary>
    public ValueTask<T> CallAsync<T>(
        ShardOperation operation, Func<ShardOperationResult, T> read, Func<IShardGrain, ShardOperation, ValueTask<T>> single, string key, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        return CallAsync(batches is null || gateway is not { IsConnected: true } ? null : batches.For(operation.Slot), operation, read, single, key, cancellationToken);
    }

    /// <summary>
    /// As <see cref="CallAsync{T}(ShardOperation, Func{ShardOperationResult, T}, Func{IShardGrain, ShardOperation, ValueTask{T}}, string, CancellationToken)"/>,
    /// through <paramref name="batcher"/> (the one <see cref="SiloBatches.For"/> gave), or as the single call when null.
    /// </summary>
    public ValueTask<T> CallAsync<T>(
        GatewayBatcher? batcher, ShardOperation operation, Func<ShardOperationResult, T> read, Func<IShardGrain, ShardOperation, ValueTask<T>> single, string key, CancellationToken cancellationToken)
    {
        if (batcher is null)
        {
            return CallAsync(operation.Slot, operation, single, key, timeout, cancellationToken);
        }

        var deadline = CallDeadline.After(timeout);
        var finishing = FinishAsync(batcher.Enqueue(operation, deadline), operation, read, single, key, Stopwatch.GetTimestamp(), deadline, cancellationToken);
        return cancellationToken.CanBeCanceled ? new ValueTask<T>(WaitAsync(finishing.AsTask(), cancellationToken)) : finishing;
    }

    private static async Task<T> WaitAsync<T>(Task<T> finishing, CancellationToken cancellationToken)
    {
        try
        {
            return await finishing.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            // Nobody waits for it any more; whatever it ends with is observed here.
            _ = finishing.ContinueWith(static task => _ = task.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
            throw;
        }
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<T> FinishAsync<T>(
        ValueTask<ShardOperationResult> batched, ShardOperation operation, Func<ShardOperationResult, T> read, Func<IShardGrain, ShardOperation, ValueTask<T>> single, string key, long started, long deadline, CancellationToken cancellationToken)
    {
        var result = await batched.ConfigureAwait(false);
        if (result.Status == ShardOperationStatus.Done)
        {
            return read(result);
        }

        if (result.Status == ShardOperationStatus.NotHere)
        {
            batches!.Missed();
        }

        return await CallAsync(operation.Slot, operation, single, key, timeout - Stopwatch.GetElapsedTime(started), cancellationToken, deadline).ConfigureAwait(false);
    }

    /// <summary>Runs <paramref name="call"/> on the shard of <paramref name="slot"/>; <paramref name="key"/> names the call in errors.</summary>
    public ValueTask<T> CallAsync<TState, T>(int slot, TState state, Func<IShardGrain, TState, ValueTask<T>> call, string key, CancellationToken cancellationToken) =>
        CallAsync(slot, state, call, key, timeout, cancellationToken);

    /// <summary>
    /// The single call, trying again within <paramref name="budget"/>, every attempt carrying <paramref name="deadline"/>
    /// (when given, that of the batch the operation went in first; else <paramref name="budget"/> from now).
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<T> CallAsync<TState, T>(
        int slot, TState state, Func<IShardGrain, TState, ValueTask<T>> call, string key, TimeSpan budget, CancellationToken cancellationToken, long deadline = CallDeadline.None)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (budget <= TimeSpan.Zero)
        {
            throw NoAnswer(key, null);
        }

        if (gateway is { IsConnected: false })
        {
            await gateway.ConnectAsync(cancellationToken).ConfigureAwait(false);
        }

        try
        {
            return await ShardCallRetry.CallAsync(
                (Grain: GrainOf(slot), State: state, Call: call, Deadline: deadline == CallDeadline.None ? CallDeadline.After(budget) : deadline),
                static s => CallDeadline.Carrying(s.Deadline, s, static s => s.Call(s.Grain, s.State)),
                budget,
                cancellationToken: cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is TimeoutException or CallDeadlineException)
        {
            throw NoAnswer(key, exception);
        }
        catch (Exception exception) when (ShardCallRetry.IsTransient(exception, cancellationToken))
        {
            throw new CubbyConnectionException(
                $"No Cubby silo could take the call for '{key}' within {timeout.TotalSeconds:0.###} s (Cubby:Client:OperationTimeout): {exception.Message}", exception);
        }
    }

    private TimeoutException NoAnswer(string key, Exception? exception) =>
        new($"The call for '{key}' got no answer within {timeout.TotalSeconds:0.###} s (Cubby:Client:OperationTimeout).", exception);
}
