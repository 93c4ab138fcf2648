using System.Runtime.CompilerServices;
using Cubby.Client.Gateways;
using Cubby.Sharding;

namespace Cubby.Client.Shards;

/// <summary>
/// Calls the shard grain of a slot: connecting first when the client has its own gateway connection, trying again
/// while a silo leaves or cannot be reached, and turning what is left of a failure into an exception that names it.
/// </summary>
internal sealed class ShardCalls(IGrainFactory grains, int slotCount, TimeSpan timeout, GatewayConnection? gateway)
{
    private readonly IShardGrain?[] _grains = new IShardGrain?[slotCount];

    public ShardMap Map { get; } = new(slotCount);

    public IShardGrain GrainOf(int slot) => _grains[slot] ??= grains.GetGrain<IShardGrain>(slot);

    /// <summary>Runs <paramref name="call"/> on the shard of <paramref name="slot"/>; <paramref name="key"/> names the call in errors.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<T> CallAsync<TState, T>(int slot, TState state, Func<IShardGrain, TState, ValueTask<T>> call, string key, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (gateway is { IsConnected: false })
        {
            await gateway.ConnectAsync(cancellationToken).ConfigureAwait(false);
        }

        try
        {
            return await ShardCallRetry.CallAsync(
                (Grain: GrainOf(slot), State: state, Call: call),
                static s => s.Call(s.Grain, s.State),
                timeout,
                cancellationToken: cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException exception)
        {
            throw new TimeoutException(
                $"The call for '{key}' got no answer within {timeout.TotalSeconds:0.###} s (Cubby:Client:OperationTimeout).", exception);
        }
        catch (Exception exception) when (ShardCallRetry.IsTransient(exception))
        {
            throw new CubbyConnectionException(
                $"No Cubby silo could take the call for '{key}' within {timeout.TotalSeconds:0.###} s (Cubby:Client:OperationTimeout): {exception.Message}", exception);
        }
    }
}
