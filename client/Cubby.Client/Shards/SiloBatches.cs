using System.Collections.Concurrent;
using System.Diagnostics;
using Cubby.Client.Gateways;
using Cubby.Client.NearCaching;
using Cubby.Sharding;
using Orleans.Messaging;
using Orleans.Runtime;
using Orleans.Serialization.TypeSystem;

namespace Cubby.Client.Shards;

/// <summary>
/// Which gateway's batch entry point takes each shard: learned by asking every gateway the Orleans client counts live
/// (<paramref name="live"/>) which shards it holds open or is the home of, and asked again, at most once a second, when
/// an operation finds its shard unknown or not where the map said. Until then such an operation goes to its shard
/// grain, where Orleans routes it. With
/// <paramref name="traceCalls"/> (distributed tracing on), a call made inside an activity goes to its grain too, so
/// its trace shows its own call. With <paramref name="links"/> (a near cache), each gateway's batches carry its
/// link to that silo.
/// </summary>
internal sealed class SiloBatches(
    IGrainFactory grains, IGatewayListProvider gateways, LiveGateways live, int slotCount, bool traceCalls = false, Func<SiloAddress, TrackerLink>? links = null)
{
    private static readonly TimeSpan RefreshInterval = TimeSpan.FromSeconds(1);

    // Orleans names a grain service by its interface type's stable hash; the gateway's own address in the id sends the
    // message to that gateway, which hands it to its local service (as Orleans' client reaches the cluster manifest).
    private static readonly int ServiceTypeCode = (int)StableHash.ComputeHash(RuntimeTypeNameFormatter.Format(typeof(IShardBatchService)));

    private readonly ConcurrentDictionary<SiloAddress, GatewayBatcher> _batchers = new();
    private GatewayBatcher?[] _bySlot = new GatewayBatcher?[slotCount];
    private int _refreshing;
    private long _lastRefresh;

    /// <summary>
    /// The batcher of the gateway that holds <paramref name="slot"/>, or null (and the map asked again) when none is
    /// known or its last batch failed.
    /// </summary>
    public GatewayBatcher? For(int slot)
    {
        if (traceCalls && Activity.Current is not null)
        {
            return null;
        }

        if (Volatile.Read(ref _bySlot)[slot] is { IsAvailable: true } batcher)
        {
            return batcher;
        }

        Missed();
        return null;
    }

    /// <summary>Every batcher so far, for tests and diagnostics.</summary>
    public IEnumerable<GatewayBatcher> Batchers => _batchers.Values;

    /// <summary>An operation found its shard elsewhere: asks the gateways again unless that was done within the last second.</summary>
    public void Missed()
    {
        var now = TimeProvider.System.GetTimestamp();
        if (TimeProvider.System.GetElapsedTime(Interlocked.Read(ref _lastRefresh), now) < RefreshInterval
            || Interlocked.CompareExchange(ref _refreshing, 1, 0) != 0)
        {
            return;
        }

        Interlocked.Exchange(ref _lastRefresh, now);

        // Not the caller's work: its activity and request context stay out of the gateways' answers.
        using (ExecutionContext.SuppressFlow())
        {
            _ = Task.Run(RefreshAsync);
        }
    }

    private async Task RefreshAsync()
    {
        try
        {
            var map = new GatewayBatcher?[Volatile.Read(ref _bySlot).Length];
            var asked = new List<(GatewayBatcher Batcher, Task<int[]> Slots)>();
            foreach (var uri in await gateways.GetGateways().ConfigureAwait(false))
            {
                if (uri.ToGatewayAddress() is { } address && live.Contains(address))
                {
                    var batcher = _batchers.GetOrAdd(
                        address, static (gateway, state) => new GatewayBatcher(gateway, ServiceAt(state.grains, gateway), state.live, state.links?.Invoke(gateway)), (grains, live, links));
                    asked.Add((batcher, ServiceAt(grains, address).Slots().AsTask()));
                }
            }

            foreach (var (batcher, slots) in asked)
            {
                try
                {
                    foreach (var slot in await slots.ConfigureAwait(false))
                    {
                        if ((uint)slot < (uint)map.Length)
                        {
                            map[slot] = batcher;
                        }
                    }
                }
                catch (Exception exception) when (exception is not OutOfMemoryException)
                {
                    // A gateway that does not answer (stopping, or older than batches) takes no shard; its calls go to grains.
                }
            }

            var holding = map.Where(static batcher => batcher is not null).Distinct().Count();
            foreach (var (batcher, _) in asked)
            {
                batcher.MaxInFlight = holding > 1 ? 1 : GatewayBatcher.LoneGatewayInFlight;
            }

            Volatile.Write(ref _bySlot, map);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            // No gateway list now: calls go to grains, and the next miss asks again.
        }
        finally
        {
            Volatile.Write(ref _refreshing, 0);
        }
    }

    /// <summary>The batch entry point of the silo whose gateway is <paramref name="gateway"/>.</summary>
    public static IShardBatchService ServiceAt(IGrainFactory grains, SiloAddress gateway) =>
        grains.GetGrain<IShardBatchService>(SystemTargetGrainId.CreateGrainServiceGrainId(ServiceTypeCode, null!, gateway));
}
