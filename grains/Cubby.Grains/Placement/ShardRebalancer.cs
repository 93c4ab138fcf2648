using Cubby.Sharding;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orleans;
using Orleans.Runtime;

namespace Cubby.Grains.Placement;

/// <summary>
/// Sends this silo's shards home when the cluster changes: on every membership or manifest change (and every
/// <see cref="RecheckPeriod"/> in case a move was refused), each shard held here whose home is another silo migrates
/// there with its entries. Orleans moves nothing by itself when a silo joins, so without this a new silo would stay empty.
/// When this silo stops, every shard it holds moves off while the silo still accepts calls (the end of its Active
/// stage), so callers are forwarded to the shard's new silo instead of being refused by a stopping one.
/// </summary>
internal sealed partial class ShardRebalancer(
    ShardCatalog catalog,
    ShardHomes homes,
    IGrainFactory grains,
    IClusterMembershipService membership,
    ILogger<ShardRebalancer> logger) : BackgroundService, ILifecycleParticipant<ISiloLifecycle>
{
    public static readonly TimeSpan RecheckPeriod = TimeSpan.FromSeconds(5);

    // Lets a burst of changes (a silo's Joining, then Active) settle into one pass.
    private static readonly TimeSpan Settle = TimeSpan.FromMilliseconds(250);

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        var changed = new SemaphoreSlim(0);
        _ = WatchAsync(changed, stoppingToken);
        while (!stoppingToken.IsCancellationRequested)
        {
            try
            {
                await changed.WaitAsync(RecheckPeriod, stoppingToken).ConfigureAwait(false);
                await Task.Delay(Settle, stoppingToken).ConfigureAwait(false);
                while (changed.CurrentCount > 0)
                {
                    await changed.WaitAsync(stoppingToken).ConfigureAwait(false);
                }

                await MoveStrayShardsAsync(stoppingToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
            {
                return;
            }
            catch (Exception exception)
            {
                LogPassFailed(logger, exception);
            }
        }
    }

    public void Participate(ISiloLifecycle lifecycle) =>
        lifecycle.Subscribe(nameof(ShardRebalancer), ServiceLifecycleStage.Active, static _ => Task.CompletedTask, EvacuateAsync);

    /// <summary>Moves every shard off this silo, waiting until none is left here or <paramref name="cancellationToken"/> fires.</summary>
    private async Task EvacuateAsync(CancellationToken cancellationToken)
    {
        homes.Leaving = true;
        var started = TimeProvider.System.GetTimestamp();
        try
        {
            while (!cancellationToken.IsCancellationRequested && HeldShards() > 0)
            {
                await MoveStrayShardsAsync(cancellationToken).ConfigureAwait(false);
                await Task.Delay(Settle, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
        }
        catch (Exception exception)
        {
            LogPassFailed(logger, exception);
        }

        var left = HeldShards();
        var elapsed = TimeProvider.System.GetElapsedTime(started).TotalMilliseconds;
        LogEvacuated(logger, left, elapsed);
    }

    private int HeldShards()
    {
        var held = 0;
        for (var shard = 0; shard < catalog.SlotCount; shard++)
        {
            held += catalog.Find(shard) is { IsOpen: true } ? 1 : 0;
        }

        return held;
    }

    /// <summary>Asks every shard held here whose home is elsewhere to move there; returns how many moved.</summary>
    public async Task<int> MoveStrayShardsAsync(CancellationToken cancellationToken)
    {
        var moves = new List<Task<bool>>();
        for (var shard = 0; shard < catalog.SlotCount; shard++)
        {
            if (catalog.Find(shard) is { IsOpen: true } && !homes.HomeOf(shard).Equals(homes.Self))
            {
                moves.Add(grains.GetGrain<IShardGrain>(shard).MoveHome().AsTask().WaitAsync(cancellationToken));
            }
        }

        if (moves.Count == 0)
        {
            return 0;
        }

        var moved = (await Task.WhenAll(moves).ConfigureAwait(false)).Count(static moved => moved);
        LogMoved(logger, moved);
        return moved;
    }

    private async Task WatchAsync(SemaphoreSlim changed, CancellationToken stoppingToken)
    {
        try
        {
            await foreach (var _ in membership.MembershipUpdates.WithCancellation(stoppingToken).ConfigureAwait(false))
            {
                changed.Release();
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
        }
    }

    [LoggerMessage(EventId = 3010, Level = LogLevel.Information, Message = "Sent {Count} shards to their home silos")]
    private static partial void LogMoved(ILogger logger, int count);

    [LoggerMessage(EventId = 3012, Level = LogLevel.Information, Message = "Moved this silo's shards off before stopping in {Milliseconds:F0} ms; {Left} left behind")]
    private static partial void LogEvacuated(ILogger logger, int left, double milliseconds);

    [LoggerMessage(EventId = 3011, Level = LogLevel.Warning, Message = "Sending shards home failed; retrying at the next cluster change")]
    private static partial void LogPassFailed(ILogger logger, Exception exception);
}
