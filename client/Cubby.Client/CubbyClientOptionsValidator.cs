using Microsoft.Extensions.Options;

namespace Cubby.Client;

/// <summary>Checks <see cref="CubbyClientOptions"/> at start, naming the setting that is wrong.</summary>
internal sealed class CubbyClientOptionsValidator : IValidateOptions<CubbyClientOptions>
{
    public ValidateOptionsResult Validate(string? name, CubbyClientOptions options)
    {
        var failures = new List<string>();
        if (options.Endpoints.Count == 0)
        {
            failures.Add("Cubby:Client:Endpoints must list at least one silo as host:port.");
        }

        foreach (var endpoint in options.Endpoints)
        {
            if (!EndpointAddress.TryParse(endpoint, out _, out _))
            {
                failures.Add($"Cubby:Client:Endpoints has '{endpoint}', which is not host:port with a port from 1 to 65535.");
            }
        }

        void Positive(TimeSpan value, string setting)
        {
            if (value <= TimeSpan.Zero)
            {
                failures.Add($"Cubby:Client:{setting} must be positive (was {value}).");
            }
        }

        Positive(options.ConnectTimeout, nameof(options.ConnectTimeout));
        Positive(options.OperationTimeout, nameof(options.OperationTimeout));
        Positive(options.ReconnectMinDelay, nameof(options.ReconnectMinDelay));
        if (options.ReconnectMaxDelay < options.ReconnectMinDelay)
        {
            failures.Add($"Cubby:Client:ReconnectMaxDelay must be at least Cubby:Client:ReconnectMinDelay (was {options.ReconnectMaxDelay}).");
        }

        if (options.MaxKeyBytes < 1)
        {
            failures.Add($"Cubby:Client:MaxKeyBytes must be positive (was {options.MaxKeyBytes}).");
        }

        if (options.MaxValueBytes < 1)
        {
            failures.Add($"Cubby:Client:MaxValueBytes must be positive (was {options.MaxValueBytes}).");
        }

        if (options.Protocol is not (Resp.RespVersion.Resp2 or Resp.RespVersion.Resp3))
        {
            failures.Add($"Cubby:Client:Protocol must be Resp2 or Resp3 (was {options.Protocol}).");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
