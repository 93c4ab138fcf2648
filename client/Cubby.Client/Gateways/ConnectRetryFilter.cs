using Cubby.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Cubby.Client.Gateways;

/// <summary>
/// Keeps Orleans' client start trying while no gateway answers (silos starting after the app, a wrong address that an
/// operator fixes in DNS, a rolling restart), until the client stops. Callers meanwhile wait at most
/// <see cref="CubbyClientOptions.ConnectTimeout"/>.
/// </summary>
internal sealed partial class ConnectRetryFilter(ConnectFailures failures, ILogger<ConnectRetryFilter> logger) : IClientConnectionRetryFilter
{
    private static readonly TimeSpan Pause = TimeSpan.FromMilliseconds(500);

    public async Task<bool> ShouldRetryConnectionAttempt(Exception exception, CancellationToken cancellationToken)
    {
        failures.Record(exception);
        LogRetrying(logger, exception.Message);
        try
        {
            await Task.Delay(Pause, cancellationToken).ConfigureAwait(false);
            return true;
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }

    [LoggerMessage(EventId = LogEvents.GatewayConnectRetrying, Level = LogLevel.Warning, Message = "Cubby client could not connect to a gateway yet, trying again: {Reason}")]
    private static partial void LogRetrying(ILogger logger, string reason);
}
