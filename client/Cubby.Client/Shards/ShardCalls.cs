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
    /// wait counts against the call's timeout. Cancelling stops the caller's wait only: an operation its batch did not
    /// run is still sent once to its grain, as a single call already sent still runs.
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

        var finishing = FinishAsync(batcher.Enqueue(operation), operation, read, single, key, Stopwatch.GetTimestamp(), cancellationToken);
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
        ValueTask<ShardOperationResult> batched, ShardOperation operation, Func<ShardOperationResult, T> read, Func<IShardGrain, ShardOperation, ValueTask<T>> single, string key, long started, CancellationToken cancellationToken)
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

        return await CallAsync(operation.Slot, operation, single, key, timeout - Stopwatch.GetElapsedTime(started), cancellationToken, sendIfCancelled: true).ConfigureAwait(false);
    }

    /// <summary>Runs <paramref name="call"/> on the shard of <paramref name="slot"/>; <paramref name="key"/> names the call in errors.</summary>
    public ValueTask<T> CallAsync<TState, T>(int slot, TState state, Func<IShardGrain, TState, ValueTask<T>> call, string key, CancellationToken cancellationToken) =>
        CallAsync(slot, state, call, key, timeout, cancellationToken);

    /// <summary>
    /// The single call, trying again within <paramref name="budget"/>; with <paramref name="sendIfCancelled"/> its first
    /// attempt is sent even when the caller has stopped waiting (an operation its batch did not run).
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<T> CallAsync<TState, T>(
        int slot, TState state, Func<IShardGrain, TState, ValueTask<T>> call, string key, TimeSpan budget, CancellationToken cancellationToken, bool sendIfCancelled = false)
    {
        if (!sendIfCancelled)
        {
            cancellationToken.ThrowIfCancellationRequested();
        }

        if (gateway is { IsConnected: false })
        {
            await gateway.ConnectAsync(sendIfCancelled ? CancellationToken.None : cancellationToken).ConfigureAwait(false);
        }

        try
        {
            return await ShardCallRetry.CallAsync(
                (Grain: GrainOf(slot), State: state, Call: call),
                static s => s.Call(s.Grain, s.State),
                budget,
                cancellationToken: cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException exception)
        {
            throw new TimeoutException(
                $"The call for '{key}' got no answer within {timeout.TotalSeconds:0.###} s (Cubby:Client:OperationTimeout).", exception);
        }
        catch (Exception exception) when (ShardCallRetry.IsTransient(exception, cancellationToken))
        {
            throw new CubbyConnectionException(
                $"No Cubby silo could take the call for '{key}' within {timeout.TotalSeconds:0.###} s (Cubby:Client:OperationTimeout): {exception.Message}", exception);
        }
    }
}
