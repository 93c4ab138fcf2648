using Cubby.Client.Gateways;
using Microsoft.Extensions.Options;

namespace Cubby.Client;

/// <summary>Checks <see cref="CubbyClientOptions"/> at start, naming the setting that is wrong.</summary>
internal sealed class CubbyClientOptionsValidator(ClientRuntime runtime) : IValidateOptions<CubbyClientOptions>
{
    public ValidateOptionsResult Validate(string? name, CubbyClientOptions options)
    {
        var failures = new List<string>();
        if (!runtime.InProcess)
        {
            ValidateGateways(options, failures);
        }

        if (options.OperationTimeout <= TimeSpan.Zero)
        {
            failures.Add($"Cubby:Client:OperationTimeout must be positive (was {options.OperationTimeout}).");
        }

        if (options.FillLease < TimeSpan.FromMilliseconds(100) || options.FillLease > TimeSpan.FromSeconds(30))
        {
            failures.Add($"Cubby:Client:FillLease must be from 100 ms to 30 s (was {options.FillLease}).");
        }

        if (options.SlotCount is < 1 or > Sharding.ShardMap.MaxSlotCount)
        {
            failures.Add($"Cubby:Client:SlotCount must be between 1 and {Sharding.ShardMap.MaxSlotCount} (was {options.SlotCount}).");
        }

        if (options.MaxKeyBytes < 1)
        {
            failures.Add($"Cubby:Client:MaxKeyBytes must be positive (was {options.MaxKeyBytes}).");
        }

        if (options.MaxValueBytes < 1)
        {
            failures.Add($"Cubby:Client:MaxValueBytes must be positive (was {options.MaxValueBytes}).");
        }

        if (options.NearCache.Enabled)
        {
            ValidateNearCache(options, failures);
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    private void ValidateNearCache(CubbyClientOptions options, List<string> failures)
    {
        if (runtime.InProcess)
        {
            failures.Add("Cubby:Client:NearCache:Enabled needs the gateway client: in a process that already runs Orleans, calls do not go in the batches the silos track reads of.");
        }
        else if (!options.CoalesceCalls)
        {
            failures.Add("Cubby:Client:NearCache:Enabled needs Cubby:Client:CoalesceCalls: the silos track reads that come in batches.");
        }

        if (options.NearCache.MaxBytes < 1024)
        {
            failures.Add($"Cubby:Client:NearCache:MaxBytes must be at least 1024 (was {options.NearCache.MaxBytes}).");
        }

        if (options.NearCache.UpdateMaxBytes is < 0 or > NearCacheOptions.MostUpdateMaxBytes)
        {
            failures.Add($"Cubby:Client:NearCache:UpdateMaxBytes must be between 0 and {NearCacheOptions.MostUpdateMaxBytes} (was {options.NearCache.UpdateMaxBytes}).");
        }

        if (options.NearCache.MaxStaleness < TimeSpan.FromMilliseconds(100))
        {
            failures.Add($"Cubby:Client:NearCache:MaxStaleness must be at least 100 ms (was {options.NearCache.MaxStaleness}).");
        }

        if (!Enum.IsDefined(options.NearCache.Coherence))
        {
            failures.Add($"Cubby:Client:NearCache:Coherence must be Strict or Pushed (was {(int)options.NearCache.Coherence}).");
        }
    }

    private static void ValidateGateways(CubbyClientOptions options, List<string> failures)
    {
        var fromTable = !string.IsNullOrWhiteSpace(options.Clustering.ConnectionString);
        if (fromTable && options.Endpoints.Count > 0)
        {
            failures.Add("Cubby:Client:Endpoints and Cubby:Client:Clustering:ConnectionString are both set; use one way to find the gateways.");
        }
        else if (!fromTable && options.Endpoints.Count == 0)
        {
            failures.Add(
                $"Cubby:Client:Endpoints must list at least one silo gateway as host:port (or set ConnectionStrings:{CubbyClientOptions.ConnectionStringName} or Cubby:Client:Clustering:ConnectionString).");
        }

        foreach (var endpoint in options.Endpoints)
        {
            if (!EndpointAddress.TryParse(endpoint, out _, out _))
            {
                failures.Add($"Cubby:Client:Endpoints has '{endpoint}', which is not host:port with a port from 1 to 65535.");
            }
        }

        if (string.IsNullOrWhiteSpace(options.ClusterId))
        {
            failures.Add("Cubby:Client:ClusterId must not be empty.");
        }

        if (string.IsNullOrWhiteSpace(options.ServiceId))
        {
            failures.Add("Cubby:Client:ServiceId must not be empty.");
        }

        if (options.GatewayRefreshInterval < TimeSpan.FromMilliseconds(100))
        {
            failures.Add($"Cubby:Client:GatewayRefreshInterval must be at least 100 ms (was {options.GatewayRefreshInterval}).");
        }

        if (options.ConnectTimeout <= TimeSpan.Zero)
        {
            failures.Add($"Cubby:Client:ConnectTimeout must be positive (was {options.ConnectTimeout}).");
        }

        if (options.Tls.Enabled && GatewayTls.Problem(options.Tls) is { } problem)
        {
            failures.Add(problem);
        }
    }
}
