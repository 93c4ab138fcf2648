using System.Net;
using Cubby.Diagnostics;
using Microsoft.Extensions.Logging;
using Orleans.Runtime;

namespace Cubby.Client.Gateways;

/// <summary>
/// Every active silo's gateway, learned from the cluster through whichever gateway the client reached, as a Redis
/// Cluster client learns every node from one seed: a client given one silo, a DNS name or a load balancer's address
/// then talks to each silo directly (batches, near cache) and keeps working while the address it was given is down.
/// The silos' membership table is Orleans' own (<see cref="IManagementGrain.GetDetailedHosts(bool, CancellationToken)"/>);
/// a silo without a gateway port is left out. Once <see cref="FailuresBeforeDoubting"/> asks in a row have failed, the
/// list is <see cref="Doubted"/>, and the configured endpoints stand beside it (<see cref="EndpointGatewayList"/>), so a
/// cluster that came back at other addresses is found again.
/// </summary>
internal sealed partial class LearnedGateways(ILogger<LearnedGateways> logger)
{
    /// <summary>Failed asks in a row before the learned list is doubted: one is a silo leaving with the management grain on it.</summary>
    internal const int FailuresBeforeDoubting = 2;

    private volatile Uri[] _gateways = [];
    private volatile bool _doubted;
    private volatile Action? _changed;
    private int _failures;

    /// <summary>The gateways of the silos active at the last answer; empty before the first.</summary>
    public IReadOnlyList<Uri> Gateways => _gateways;

    /// <summary>Whether the last <see cref="FailuresBeforeDoubting"/> asks failed, so the list may be out of date.</summary>
    public bool Doubted => _doubted;

    /// <summary>Has <paramref name="changed"/> run whenever the list changes (the Orleans client rereading it).</summary>
    public void OnChanged(Action changed) => _changed = changed;

    /// <summary>Asks the cluster, every <paramref name="interval"/>, until <paramref name="stopping"/>.</summary>
    public async Task RunAsync(IGrainFactory grains, TimeSpan interval, TimeProvider time, CancellationToken stopping)
    {
        using var timer = new PeriodicTimer(interval, time);
        do
        {
            await LearnAsync(grains, stopping).ConfigureAwait(false);
        }
        while (await WaitAsync(timer, stopping).ConfigureAwait(false));
    }

    /// <summary>Asks the cluster once.</summary>
    public async Task LearnAsync(IGrainFactory grains, CancellationToken stopping)
    {
        try
        {
            var silos = await grains.GetGrain<IManagementGrain>(0).GetDetailedHosts(onlyActive: true, stopping).ConfigureAwait(false);
            var learned = silos
                .Where(static silo => silo.ProxyPort > 0)
                .Select(static silo => new IPEndPoint(silo.SiloAddress.Endpoint.Address, silo.ProxyPort))
                .Distinct()
                .Order(EndpointOrder.Instance)
                .Select(static endpoint => endpoint.ToGatewayUri())
                .ToArray();
            _failures = 0;
            if (learned.Length == 0 || (learned.SequenceEqual(_gateways) && !_doubted))
            {
                return;
            }

            LogLearned(logger, learned.Length, learned[0].Authority);
            (_gateways, _doubted) = (learned, false);
            _changed?.Invoke();
        }
        catch (OperationCanceledException) when (stopping.IsCancellationRequested)
        {
            // The client is stopping.
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            if (++_failures >= FailuresBeforeDoubting && _gateways.Length > 0 && !_doubted)
            {
                LogDoubted(logger, _failures, exception.Message);
                _doubted = true;
                _changed?.Invoke();
            }
        }
    }

    private static async Task<bool> WaitAsync(PeriodicTimer timer, CancellationToken stopping)
    {
        try
        {
            return await timer.WaitForNextTickAsync(stopping).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }

    [LoggerMessage(EventId = LogEvents.GatewaysLearned, Level = LogLevel.Information, Message = "Cubby client learned the cluster's {Count} gateways, the first {First}")]
    private static partial void LogLearned(ILogger logger, int count, string first);

    [LoggerMessage(
        EventId = LogEvents.GatewaysDoubted, Level = LogLevel.Warning, Message = "Cubby client could not ask the cluster for its gateways {Failures} times in a row and uses the configured endpoints beside the learned ones: {Reason}")]
    private static partial void LogDoubted(ILogger logger, int failures, string reason);

    // The same order on every answer: Orleans' gateway manager round-robins over the list and expects it stable.
    private sealed class EndpointOrder : IComparer<IPEndPoint>
    {
        public static readonly EndpointOrder Instance = new();

        public int Compare(IPEndPoint? x, IPEndPoint? y) =>
            (x, y) switch
            {
                (null, null) => 0,
                (null, _) => -1,
                (_, null) => 1,
                _ => x.Address.GetAddressBytes().AsSpan().SequenceCompareTo(y.Address.GetAddressBytes()) is var byAddress and not 0 ? byAddress : x.Port.CompareTo(y.Port),
            };
    }
}
