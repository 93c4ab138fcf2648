using Cubby.Diagnostics;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Cubby.Client.Gateways;

/// <summary>
/// Starts and stops the client's own Orleans client. Connecting starts with the host, or on the first call in a process
/// without one, and goes on until a gateway answers; the host's start and each call wait for it at most
/// <see cref="CubbyClientOptions.ConnectTimeout"/>, then fail naming the gateways and the last failure.
/// </summary>
/// <remarks>
/// Once connected, it has <see cref="LearnedGateways"/> ask the cluster for every silo's gateway, with
/// <see cref="CubbyClientOptions.LearnGateways"/> and gateways given as <see cref="CubbyClientOptions.Endpoints"/>.
/// </remarks>
internal sealed partial class GatewayConnection(
    IClusterClient client, ConnectFailures failures, LearnedGateways learned, IOptions<CubbyClientOptions> options, ILogger<GatewayConnection> logger)
    : IHostedService, IAsyncDisposable, IDisposable
{
    private static readonly TimeSpan DisposeStopTimeout = TimeSpan.FromSeconds(5);

    private readonly Lock _gate = new();
    private readonly CancellationTokenSource _stopping = new();
    private readonly List<Func<Task>> _beforeStop = [];
    private Task? _connecting;
    private Task _learning = Task.CompletedTask;
    private volatile bool _connected;
    private bool _stopped;

    public bool IsConnected => _connected;

    /// <summary>Has <paramref name="goodbye"/> run, while the connection still works, before it is closed.</summary>
    public void BeforeStop(Func<Task> goodbye)
    {
        lock (_gate)
        {
            _beforeStop.Add(goodbye);
        }
    }

    /// <summary>Completes once connected, or fails after <see cref="CubbyClientOptions.ConnectTimeout"/>; connecting goes on.</summary>
    public async Task ConnectAsync(CancellationToken cancellationToken)
    {
        Task connecting;
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_stopped, this);
            connecting = _connecting ??= Task.Run(ConnectCoreAsync, CancellationToken.None);
        }

        var settings = options.Value;
        try
        {
            await connecting.WaitAsync(settings.ConnectTimeout, cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            throw new CubbyConnectionException(
                $"No Cubby silo's gateway answered at {Gateways(settings)} within {settings.ConnectTimeout.TotalSeconds:0.###} s (Cubby:Client:ConnectTimeout); " +
                $"still trying. Last failure: {failures.Last?.Message ?? "none yet"}",
                failures.Last);
        }
    }

    public Task StartAsync(CancellationToken cancellationToken) => ConnectAsync(cancellationToken);

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        Task? connecting;
        lock (_gate)
        {
            if (_stopped)
            {
                return;
            }

            _stopped = true;
            connecting = _connecting;
        }

        _connected = false;
        await _stopping.CancelAsync().ConfigureAwait(false);
        if (connecting is not null)
        {
            try
            {
                await connecting.WaitAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (Exception)
            {
                // Stopped while still connecting (or it had failed): there is no connection to close.
                return;
            }

            foreach (var goodbye in _beforeStop)
            {
                await goodbye().WaitAsync(cancellationToken).ConfigureAwait(false);
            }

            await _learning.WaitAsync(cancellationToken).ConfigureAwait(false);

            await ((IHostedService)client).StopAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>For a service provider disposed synchronously (<c>using var provider = ...</c>).</summary>
    public void Dispose() => DisposeAsync().AsTask().GetAwaiter().GetResult();

    public async ValueTask DisposeAsync()
    {
        using var timeout = new CancellationTokenSource(DisposeStopTimeout);
        try
        {
            await StopAsync(timeout.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            // Disposing does not wait longer for a gateway that does not answer the goodbye.
        }

        _stopping.Dispose();
    }

    /// <summary>Where the client looks for gateways, for messages (never the connection string itself).</summary>
    internal static string Gateways(CubbyClientOptions settings) =>
        string.IsNullOrWhiteSpace(settings.Clustering.ConnectionString)
            ? $"{string.Join(", ", settings.Endpoints)} (Cubby:Client:Endpoints)"
            : "the silos in the membership table of Cubby:Client:Clustering:ConnectionString";

    // Orleans retries inside its start (ConnectRetryFilter) until stopping cancels it.
    private async Task ConnectCoreAsync()
    {
        try
        {
            await ((IHostedService)client).StartAsync(_stopping.Token).ConfigureAwait(false);
        }
        catch (Exception exception) when (!_stopping.IsCancellationRequested)
        {
            throw new CubbyConnectionException($"Could not connect to a Cubby silo's gateway at {Gateways(options.Value)}: {exception.Message}", exception);
        }

        _connected = true;
        var settings = options.Value;
        var gateways = Gateways(settings);
        LogConnected(logger, gateways);
        if (settings.LearnGateways && string.IsNullOrWhiteSpace(settings.Clustering.ConnectionString))
        {
            _learning = learned.RunAsync(client, settings.GatewayRefreshInterval, TimeProvider.System, _stopping.Token);
        }
    }

    [LoggerMessage(EventId = LogEvents.GatewayConnected, Level = LogLevel.Information, Message = "Cubby client connected to the cluster through {Gateways}")]
    private static partial void LogConnected(ILogger logger, string gateways);
}
