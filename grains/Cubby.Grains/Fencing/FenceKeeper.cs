using Cubby.Diagnostics;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orleans.Runtime.Services;

namespace Cubby.Grains.Fencing;

/// <summary>
/// Keeps <see cref="ServingFence"/> confirmed: four times per <see cref="ServingFence.ServingFor"/>, asks every other
/// active silo how it sees this one (<see cref="IMembershipWitness"/>); when a majority of the active silos, this one
/// counted, see it active, the fence is confirmed from when the round began. A silo alone needs nobody. A witness that
/// sees this silo dead, or this silo's own view saying so, closes the fence for good.
/// </summary>
internal sealed partial class FenceKeeper : GrainServiceClient<IMembershipWitness>, IHostedService, IDisposable
{
    private readonly ServingFence _fence;
    private readonly IClusterMembershipService _membership;
    private readonly SiloAddress _self;
    private readonly ILogger<FenceKeeper> _logger;
    private readonly CancellationTokenSource _stopping = new();
    private Task? _loop;
    private bool _toldFenced;

    public FenceKeeper(IServiceProvider services, ServingFence fence)
        : base(services)
    {
        _fence = fence;
        _membership = services.GetRequiredService<IClusterMembershipService>();
        _self = services.GetRequiredService<ILocalSiloDetails>().SiloAddress;
        _logger = services.GetRequiredService<ILogger<FenceKeeper>>();
    }

    private TimeSpan Interval => _fence.ServingFor / 4;

    /// <summary>How long a round waits for the rest once a majority agreed.</summary>
    private TimeSpan StragglerWait => Interval / 5;

    public Task StartAsync(CancellationToken cancellationToken)
    {
        _loop = Task.Run(() => RunAsync(_stopping.Token), CancellationToken.None);
        return Task.CompletedTask;
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        await _stopping.CancelAsync().ConfigureAwait(false);
        if (_loop is { } loop)
        {
            await loop.WaitAsync(cancellationToken).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        }
    }

    public void Dispose() => _stopping.Dispose();

    private async Task RunAsync(CancellationToken stopping)
    {
        while (!stopping.IsCancellationRequested && !_fence.Dead)
        {
            var askedAt = TimeProvider.System.GetTimestamp();
            try
            {
                await ConfirmAsync(askedAt).ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                // A round that failed confirms nothing; the fence closes by itself if no later round confirms.
                LogRoundFailed(_logger, exception);
            }

            await Task.Delay(Interval, TimeProvider.System, stopping).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        }
    }

    private async Task ConfirmAsync(long askedAt)
    {
        var snapshot = _membership.CurrentSnapshot;
        if (snapshot.GetSiloStatus(_self) == SiloStatus.Dead)
        {
            Die();
            return;
        }

        var peers = snapshot.Members.Values.Where(member => member.Status == SiloStatus.Active && !member.SiloAddress.Equals(_self)).Select(static member => member.SiloAddress).ToArray();
        var needed = ((peers.Length + 1) / 2) + 1;
        var agreeing = 1;

        // Once a majority agrees, the others get a moment more (a peer that answers at all answers about as fast), not
        // the whole wait: a peer cut off would otherwise hold every round for it, and a round that long leaves too
        // little of the confirmation it gives. An answer that this silo is dead closes the fence for good, even one
        // that comes after the round (AskAsync).
        var asked = peers.Select(AskAsync).ToArray();
        await foreach (var answer in Task.WhenEach(asked).ConfigureAwait(false))
        {
            if (await answer.ConfigureAwait(false) == SiloStatus.Active && ++agreeing == needed)
            {
                await Task.WhenAny(Task.WhenAll(asked), Task.Delay(StragglerWait, TimeProvider.System)).ConfigureAwait(false);
                break;
            }
        }

        if (_fence.Dead)
        {
            return;
        }

        if (agreeing >= needed)
        {
            _fence.Confirmed(askedAt);
            if (_toldFenced)
            {
                _toldFenced = false;
                LogUnfenced(_logger, agreeing, peers.Length + 1);
            }
        }
        else if (!_fence.IsServing && !_toldFenced)
        {
            _toldFenced = true;
            LogFenced(_logger, agreeing, peers.Length + 1, _fence.ServingFor.TotalMilliseconds);
        }
    }

    /// <summary>
    /// How <paramref name="peer"/> sees this silo, or <see cref="SiloStatus.None"/> when it does not answer within a
    /// round; an answer that this silo is dead closes the fence for good, whenever it comes.
    /// </summary>
    private async Task<SiloStatus> AskAsync(SiloAddress peer)
    {
        try
        {
            var status = await GetGrainService(peer).StatusOf(_self).AsTask().WaitAsync(Interval * 2).ConfigureAwait(false);
            if (status == SiloStatus.Dead)
            {
                Die();
            }

            return status;
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            return SiloStatus.None;
        }
    }

    private void Die()
    {
        if (!_fence.Dead)
        {
            _fence.DeclaredDead();
            LogDeclaredDead(_logger);
        }
    }

    [LoggerMessage(EventId = LogEvents.SiloFenced, Level = LogLevel.Warning, Message = "Only {Agreeing} of {Members} silos see this silo active: it serves no shard until a majority does (each confirmation lasts {ServingForMs} ms)")]
    private static partial void LogFenced(ILogger logger, int agreeing, int members, double servingForMs);

    [LoggerMessage(EventId = LogEvents.SiloUnfenced, Level = LogLevel.Information, Message = "{Agreeing} of {Members} silos see this silo active: it serves its shards again")]
    private static partial void LogUnfenced(ILogger logger, int agreeing, int members);

    [LoggerMessage(EventId = LogEvents.SiloDeclaredDead, Level = LogLevel.Warning, Message = "The cluster declared this silo dead: it serves no shard again")]
    private static partial void LogDeclaredDead(ILogger logger);

    [LoggerMessage(EventId = LogEvents.FenceRoundFailed, Level = LogLevel.Debug, Message = "A round confirming this silo's membership failed")]
    private static partial void LogRoundFailed(ILogger logger, Exception exception);
}
