using System.Diagnostics.Metrics;
using Cubby.Client.Diagnostics;

namespace Cubby.Client.Filling;

/// <summary>
/// What get-or-create calls did (Cubby's HybridCache, and <see cref="ICubbyClient.GetOrCreateAsync"/>), read by
/// observable instruments on the <c>Cubby.Client</c> meter: hits in this process, hits in the cluster, misses, factory
/// runs, waits for another caller's run (in this process or another), and tags removed. Local hits, counted on the hot
/// path, are striped (<see cref="StripedCounter"/>).
/// </summary>
internal sealed class GetOrCreateMetrics : IDisposable
{
    private readonly Meter _meter;
    private readonly bool _ownsMeter;
    private readonly StripedCounter _localHits = new();
    private long _remoteHits;
    private long _misses;
    private long _factoryRuns;
    private long _joinedWaits;
    private long _tagRemovals;

    public GetOrCreateMetrics(IMeterFactory? meters)
    {
        _ownsMeter = meters is null;
        _meter = meters?.Create(NearCaching.NearCacheMetrics.MeterName) ?? new Meter(NearCaching.NearCacheMetrics.MeterName);
        _meter.CreateObservableCounter("cubby.client.get_or_create.local_hits", () => LocalHits, "{call}", "Get-or-create calls served from this process.");
        _meter.CreateObservableCounter("cubby.client.get_or_create.remote_hits", () => RemoteHits, "{call}", "Get-or-create runs served from the cluster.");
        _meter.CreateObservableCounter("cubby.client.get_or_create.misses", () => Misses, "{call}", "Get-or-create runs that found nothing usable.");
        _meter.CreateObservableCounter("cubby.client.get_or_create.factory_runs", () => FactoryRuns, "{run}", "Factories run in this process.");
        _meter.CreateObservableCounter("cubby.client.get_or_create.joined_waits", () => JoinedWaits, "{wait}", "Callers that waited for a factory run by another caller, here or in another process.");
        _meter.CreateObservableCounter("cubby.client.get_or_create.tag_removals", () => TagRemovals, "{tag}", "Tags removed.");
    }

    public long LocalHits => _localHits.Value;

    public long RemoteHits => Volatile.Read(ref _remoteHits);

    public long Misses => Volatile.Read(ref _misses);

    public long FactoryRuns => Volatile.Read(ref _factoryRuns);

    public long JoinedWaits => Volatile.Read(ref _joinedWaits);

    public long TagRemovals => Volatile.Read(ref _tagRemovals);

    public void LocalHit() => _localHits.Increment();

    public void RemoteHit() => Interlocked.Increment(ref _remoteHits);

    public void Miss() => Interlocked.Increment(ref _misses);

    public void FactoryRan() => Interlocked.Increment(ref _factoryRuns);

    public void JoinedWait() => Interlocked.Increment(ref _joinedWaits);

    public void TagsRemoved(int count) => Interlocked.Add(ref _tagRemovals, count);

    // A factory's meter is the factory's to dispose, and shared with the near cache's instruments.
    public void Dispose()
    {
        if (_ownsMeter)
        {
            _meter.Dispose();
        }
    }
}
