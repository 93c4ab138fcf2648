using System.Collections.Concurrent;

namespace Cubby.Silo.Dashboard;

/// <summary>
/// Silos this silo has seen Orleans declare dead, and when, for <see cref="Shown"/>: the cache page lists them so an
/// operator sees what failed (Orleans' dashboard lists only active silos). Silos already dead when this one joined
/// are old news and are not listed.
/// </summary>
internal sealed class RecentDeaths(IClusterMembershipService membership, TimeProvider time) : BackgroundService
{
    public static readonly TimeSpan Shown = TimeSpan.FromMinutes(15);

    private readonly ConcurrentDictionary<SiloAddress, DateTimeOffset> _deaths = new();
    private HashSet<SiloAddress>? _known;

    /// <summary>When this silo saw <paramref name="silo"/> declared dead, if that was within <see cref="Shown"/>.</summary>
    public bool TryGetRecent(SiloAddress silo, out DateTimeOffset declaredAt) =>
        _deaths.TryGetValue(silo, out declaredAt) && declaredAt >= time.GetUtcNow() - Shown;

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        try
        {
            await foreach (var snapshot in membership.MembershipUpdates.WithCancellation(stoppingToken).ConfigureAwait(false))
            {
                Observe(snapshot);
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
            // The silo is stopping.
        }
    }

    private void Observe(ClusterMembershipSnapshot snapshot)
    {
        var dead = snapshot.Members.Values.Where(static member => member.Status == SiloStatus.Dead).Select(static member => member.SiloAddress);
        if (_known is null)
        {
            _known = [.. dead];
            return;
        }

        var now = time.GetUtcNow();
        foreach (var silo in dead.Where(_known.Add))
        {
            _deaths[silo] = now;
        }

        foreach (var old in _deaths.Where(death => death.Value < now - Shown))
        {
            _deaths.TryRemove(old.Key, out _);
        }
    }
}
