using System.Globalization;
using Cubby.Client;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Cubby.Aspire.Client;

/// <summary>
/// Asks the cluster where a fixed key's shard lives (<see cref="ICubbyClient.GetOwnerAsync"/>): one call to one shard
/// grain that reads and changes nothing, so it proves a gateway answers and a silo runs the shard grains.
/// </summary>
/// <param name="client">The app's client.</param>
/// <param name="timeout">How long to wait for the answer; null for the client's own limits.</param>
internal sealed class CubbyHealthCheck(ICubbyClient client, TimeSpan? timeout) : IHealthCheck
{
    /// <summary>The key whose owner is asked; nothing is stored under it.</summary>
    internal const string ProbeKey = "cubby:health";

    public async Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(context);
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        if (timeout is { } wait)
        {
            deadline.CancelAfter(wait);
        }

        try
        {
            var owner = await client.GetOwnerAsync(ProbeKey, deadline.Token).ConfigureAwait(false);
            return HealthCheckResult.Healthy(
                $"Silo {owner.Silo} answered for slot {owner.Slot}.",
                new Dictionary<string, object> { ["silo"] = owner.Silo, ["slot"] = owner.Slot });
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested && timeout is { } limit)
        {
            return new HealthCheckResult(
                context.Registration.FailureStatus,
                string.Create(CultureInfo.InvariantCulture, $"The Cubby cluster did not answer within {limit.TotalSeconds:0.###} s ({CubbyClientSettings.SectionName}:HealthCheckTimeout)."));
        }
        catch (Exception exception) when (exception is not OperationCanceledException)
        {
            return new HealthCheckResult(context.Registration.FailureStatus, exception.Message, exception);
        }
    }
}
