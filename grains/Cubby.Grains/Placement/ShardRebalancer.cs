using Cubby.Diagnostics;
using Cubby.Sharding;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orleans;
using Orleans.Metadata;
using Orleans.Runtime;

namespace Cubby.Grains.Placement;

/// <summary>
/// Sends this silo's shards home when the cluster changes: on every cluster manifest change (which follows every
/// membership change, and a joined silo's grain manifest arriving), every departure a silo announces, and every
/// <see cref="RecheckPeriod"/> in case a move was refused, each shard held here whose home is another silo migrates
/// there with its entries, and each shard staying here moves its replicas to where they now belong. Orleans moves nothing by itself when a silo joins, so without this a new silo would stay empty.
/// When this silo stops, it first tells the others it is departing (so they stop sending it shards), then every shard
/// it holds moves off while the silo still accepts calls (the end of its Active stage), so callers are forwarded to
/// the shard's new silo instead of being refused by a stopping one.
/// </summary>
internal sealed partial class ShardRebalancer(
    ShardCatalog catalog,
    ShardHomes homes,
    ShardHomeServices peers,
    IGrainFactory grains,
    IClusterManifestProvider manifests,
    ILogger<ShardRebalancer> logger) : BackgroundService, ILifecycleParticipant<ISiloLifecycle>
{
    public static readonly TimeSpan RecheckPeriod = TimeSpan.FromSeconds(5);

    // A peer that does not hear of the departure in time may still send a shard; the evacuation moves it on.
    private static readonly TimeSpan AnnounceTimeout = TimeSpan.FromSeconds(2);

    // Empty checks in a row, a settle apart, before the evacuation ends: a shard a peer sent just before it heard of
    // the departure arrives within that time and is moved on too.
    private const int QuietChecks = 2;

    // Lets a burst of changes (a silo's Joining, then Active) settle into one pass.
    private static readonly TimeSpan Settle = TimeSpan.FromMilliseconds(250);

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        var changed = new SemaphoreSlim(0);
        void OnDeparture() => changed.Release();
        homes.DepartureMarked += OnDeparture;
        try
        {
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

                    FollowRanking();
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
        finally
        {
            homes.DepartureMarked -= OnDeparture;
        }
    }

    public void Participate(ISiloLifecycle lifecycle) =>
        lifecycle.Subscribe(nameof(ShardRebalancer), ServiceLifecycleStage.Active, static _ => Task.CompletedTask, EvacuateAsync);

    /// <summary>
    /// Tells the other silos this one is departing, then moves every shard off it, until none has been here for
    /// <see cref="QuietChecks"/> checks in a row, no other silo is left to take them, or <paramref name="cancellationToken"/> fires.
    /// </summary>
    private async Task EvacuateAsync(CancellationToken cancellationToken)
    {
        homes.MarkDeparting(homes.Self);
        var started = TimeProvider.System.GetTimestamp();
        try
        {
            await AnnounceDepartureAsync(cancellationToken).ConfigureAwait(false);
            for (var quiet = 0; quiet < QuietChecks && !cancellationToken.IsCancellationRequested && homes.AnyOtherHome();)
            {
                if (HeldShards() > 0)
                {
                    quiet = 0;
                    await MoveStrayShardsAsync(cancellationToken).ConfigureAwait(false);
                }
                else
                {
                    quiet++;
                }

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

    private async Task AnnounceDepartureAsync(CancellationToken cancellationToken)
    {
        await Task.WhenAll(homes.Homes().Select(async silo =>
        {
            try
            {
                await peers.Of(silo).Departing(homes.Self).WaitAsync(AnnounceTimeout, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is not OperationCanceledException)
            {
                LogAnnounceFailed(logger, exception, silo);
            }
        })).ConfigureAwait(false);
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

    /// <summary>Has every shard held here move its replicas if the ranking changed since it last looked.</summary>
    private void FollowRanking()
    {
        for (var shard = 0; shard < catalog.SlotCount; shard++)
        {
            catalog.Find(shard)?.FollowRanking();
        }
    }

    /// <summary>Asks every shard held here whose home is elsewhere to move there; returns how many moved.</summary>
    public async Task<int> MoveStrayShardsAsync(CancellationToken cancellationToken)
    {
        var moves = new List<Task<bool>>();
        var ranking = homes.Ranking();
        for (var shard = 0; shard < catalog.SlotCount; shard++)
        {
            if (catalog.Find(shard) is { IsOpen: true } && !ranking.HomeOf(shard).Equals(homes.Self))
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
            await foreach (var _ in manifests.Updates.WithCancellation(stoppingToken).ConfigureAwait(false))
            {
                changed.Release();
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
        }
    }

    [LoggerMessage(EventId = LogEvents.ShardsSentHome, Level = LogLevel.Information, Message = "Sent {Count} shards to their home silos")]
    private static partial void LogMoved(ILogger logger, int count);

    [LoggerMessage(EventId = LogEvents.ShardsEvacuated, Level = LogLevel.Information, Message = "Moved this silo's shards off before stopping in {Milliseconds:F0} ms; {Left} left behind")]
    private static partial void LogEvacuated(ILogger logger, int left, double milliseconds);

    [LoggerMessage(EventId = LogEvents.DepartureNotDelivered, Level = LogLevel.Warning, Message = "Could not tell {Silo} that this silo is departing; it may still send shards here, which are moved on")]
    private static partial void LogAnnounceFailed(ILogger logger, Exception exception, SiloAddress silo);

    [LoggerMessage(EventId = LogEvents.SendingHomeFailed, Level = LogLevel.Warning, Message = "Sending shards home failed; retrying at the next cluster change")]
    private static partial void LogPassFailed(ILogger logger, Exception exception);
}
