using Cubby.Client.Gateways;
using Cubby.Sharding;

namespace Cubby.Client.NearCaching;

/// <summary>
/// Renews each silo's lease on the near cache four times per <see cref="NearCacheOptions.MaxStaleness"/>, so a lease
/// runs out only when renewals fail for most of that time. A renewal that cannot reach its silo, or a silo the Orleans
/// client no longer counts live, ends its link's epoch at once: what it tracked is dropped, and nothing else.
/// </summary>
internal sealed class LeaseRenewals : IDisposable
{
    /// <summary>How long a closing client gives the silos to hear it release its leases.</summary>
    private static readonly TimeSpan ReleaseTimeout = TimeSpan.FromSeconds(1);

    private readonly NearCache _cache;
    private readonly Func<SiloAddress, IShardBatchService> _serviceAt;
    private readonly LiveGateways _live;
    private readonly ITimer _timer;

    public LeaseRenewals(NearCache cache, Func<SiloAddress, IShardBatchService> serviceAt, LiveGateways live)
    {
        (_cache, _serviceAt, _live) = (cache, serviceAt, live);
        var period = TimeSpan.FromMilliseconds(cache.MaxStaleness / 4.0);
        _timer = cache.Clock.Time.CreateTimer(static state => ((LeaseRenewals)state!).RenewAll(), this, period, period);
    }

    /// <summary>Renews <paramref name="link"/> now, unless a renewal is already on its way.</summary>
    public void Renew(TrackerLink link)
    {
        if (link.TryStartRenewal())
        {
            _ = RenewAsync(link);
        }
    }

    /// <summary>
    /// Stops serving what any silo tracked, then tells each silo, so that no change waits for this client while it
    /// closes; a silo not told in time waits at most until this client's lease there runs out.
    /// </summary>
    public async Task ReleaseAsync()
    {
        _timer.Dispose();
        var links = _cache.Links.ToArray();
        foreach (var link in links)
        {
            link.EndEpoch();
        }

        try
        {
            // Only silos that gave a lease: the proxies are the renewals' own, as the app's services may be closing too.
            await Task.WhenAll(links.Where(static link => link.Service is not null).Select(static link => link.Service!.Release(link.Reference).AsTask()))
                .WaitAsync(ReleaseTimeout).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            // Best effort: the leases end by themselves.
        }
    }

    public void Dispose() => _timer.Dispose();

    private void RenewAll()
    {
        foreach (var link in _cache.Links)
        {
            if (_live.Contains(link.Gateway))
            {
                Renew(link);
            }
            else
            {
                link.EndEpoch();
            }
        }
    }

    private async Task RenewAsync(TrackerLink link)
    {
        var sentAt = _cache.Clock.Now;
        try
        {
            var lease = await (link.Service ??= _serviceAt(link.Gateway)).Renew(link.Reference, _cache.Terms).ConfigureAwait(false);
            link.Renewed(lease, sentAt, _cache.MaxStaleness);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            // A silo that cannot be reached (the connection refused, or Orleans counts it gone) has most likely died, and
            // the others may resume its shards sooner than its lease would run out (a killed silo's peers are refused at
            // once too, and declare it dead in well under a second): what it tracked is dropped now. One that answered
            // that it may not serve (fenced, as while a silo joins under load) or did not answer in time keeps what it
            // tracked: its lease runs out first, and a later renewal revives it.
            if (exception is SiloUnavailableException or OrleansMessageRejectionException)
            {
                link.EndEpoch();
            }

            link.RenewalFailed();
        }
    }
}
