using Cubby.Diagnostics;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Orleans.Runtime.Services;

namespace Cubby.Grains.Tracking;

/// <summary>
/// This silo's door's side of BCAST tracking: tells every active silo which key prefixes its connections listen to,
/// and each silo that becomes active later too (it may have changed keys before it knew, so it also tells the door
/// every key changed).
/// </summary>
internal sealed partial class BroadcastPublisher : GrainServiceClient<IBroadcastTrackingService>, IDisposable
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(5);

    private readonly SiloAddress _self;
    private readonly IClusterMembershipService _membership;
    private readonly ReadTracking _tracking;
    private readonly ILogger _logger;
    private readonly CancellationTokenSource _stopping = new();
    private readonly Lock _gate = new();
    private byte[][]? _prefixes;
    private Task? _watching;

    public BroadcastPublisher(IServiceProvider services)
        : base(services)
    {
        _self = services.GetRequiredService<ILocalSiloDetails>().SiloAddress;
        _membership = services.GetRequiredService<IClusterMembershipService>();
        _tracking = services.GetRequiredService<ReadTracking>();
        _logger = services.GetRequiredService<ILogger<BroadcastPublisher>>();
    }

    /// <summary>
    /// Makes every active silo send this silo's door the changes of keys with <paramref name="prefixes"/> (an empty
    /// prefix: every key; null: none any more). Done once each has taken it or did not answer within 5 s.
    /// </summary>
    public async Task PublishAsync(byte[][]? prefixes)
    {
        var others = _membership.CurrentSnapshot.Members.Values
            .Where(member => member.Status == SiloStatus.Active && !member.SiloAddress.Equals(_self))
            .Select(member => member.SiloAddress)
            .ToArray();
        lock (_gate)
        {
            _prefixes = prefixes;

            // The silos told now need no catching up: the connections listen from the answer on.
            _watching ??= prefixes is null ? null : Task.Run(() => WatchAsync([.. others, _self]));
        }

        _tracking.Listen(_self, prefixes, catchingUp: false);
        await Task.WhenAll(others.Select(silo => TellAsync(silo, prefixes, catchingUp: false))).ConfigureAwait(false);
    }

    public void Dispose()
    {
        _stopping.Cancel();
        _stopping.Dispose();
    }

    /// <summary>Tells each silo that becomes active, other than the <paramref name="told"/> ones, what this door listens to.</summary>
    private async Task WatchAsync(SiloAddress[] told)
    {
        var known = new HashSet<SiloAddress>(told);
        try
        {
            await foreach (var snapshot in _membership.MembershipUpdates.WithCancellation(_stopping.Token).ConfigureAwait(false))
            {
                foreach (var member in snapshot.Members.Values)
                {
                    if (member.Status == SiloStatus.Active && known.Add(member.SiloAddress) && Volatile.Read(ref _prefixes) is { } prefixes)
                    {
                        _ = TellAsync(member.SiloAddress, prefixes, catchingUp: true);
                    }
                }
            }
        }
        catch (OperationCanceledException)
        {
            // The silo stops.
        }
    }

    private async Task TellAsync(SiloAddress silo, byte[][]? prefixes, bool catchingUp)
    {
        try
        {
            await GetGrainService(silo).Listen(_self, prefixes, catchingUp).WaitAsync(Timeout).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            LogNotTold(_logger, exception, silo);
        }
    }

    [LoggerMessage(LogEvents.BroadcastPrefixesNotTold, LogLevel.Warning, "Silo {Silo} was not told which keys this silo's BCAST tracking connections listen to; its changes may not reach them")]
    private static partial void LogNotTold(ILogger logger, Exception exception, SiloAddress silo);
}
