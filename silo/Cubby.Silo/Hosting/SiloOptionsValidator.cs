using System.Net;
using Microsoft.Extensions.Options;

namespace Cubby.Silo.Hosting;

/// <summary>Checks <see cref="SiloOptions"/> at start, naming the setting that is wrong.</summary>
internal sealed class SiloOptionsValidator : IValidateOptions<SiloOptions>
{
    public ValidateOptionsResult Validate(string? name, SiloOptions options)
    {
        var failures = new List<string>();
        void Require(bool condition, string message)
        {
            if (!condition)
            {
                failures.Add(message);
            }
        }

        Require(options.Host is "localhost" or "*" || IPAddress.TryParse(options.Host, out _), $"Cubby:Host must be 'localhost', '*' or an IP address (was '{options.Host}').");
        Require(options.RespPort is >= 0 and <= 65535, $"Cubby:RespPort must be between 0 and 65535 (was {options.RespPort}).");
        Require(options.HttpPort is >= 0 and <= 65535, $"Cubby:HttpPort must be between 0 and 65535 (was {options.HttpPort}).");
        Require(options.RespPort == 0 || options.RespPort != options.HttpPort, $"Cubby:RespPort and Cubby:HttpPort must differ (both {options.RespPort}).");
        Require(options.SlotCount is >= 1 and <= Sharding.ShardMap.MaxSlotCount, $"Cubby:SlotCount must be between 1 and {Sharding.ShardMap.MaxSlotCount} (was {options.SlotCount}).");
        Require(options.MaxKeyBytes is >= 1 and <= 512 * 1024 * 1024, $"Cubby:MaxKeyBytes must be between 1 and 536870912 (was {options.MaxKeyBytes}).");
        Require(options.MaxValueBytes is >= 1 and <= 512 * 1024 * 1024, $"Cubby:MaxValueBytes must be between 1 and 536870912 (was {options.MaxValueBytes}).");
        Require(options.MaxArguments >= 3, $"Cubby:MaxArguments must be at least 3 (was {options.MaxArguments}).");
        Require(options.MaxRequestBytes >= (long)options.MaxValueBytes + options.MaxKeyBytes + 1024, $"Cubby:MaxRequestBytes must leave room for one key and one value: at least Cubby:MaxValueBytes + Cubby:MaxKeyBytes + 1024 (was {options.MaxRequestBytes}).");
        Require(options.MaxRequestBytes <= Array.MaxLength, $"Cubby:MaxRequestBytes must be at most {Array.MaxLength} (was {options.MaxRequestBytes}).");
        Require(options.MaxMemoryBytes >= 0, $"Cubby:MaxMemoryBytes must be 0 (half the available memory) or positive (was {options.MaxMemoryBytes}).");
        Require(Enum.IsDefined(options.Store), $"Cubby:Store must be Native or Managed (was {options.Store}).");
        Require(options.EvictionSamples is >= 1 and <= 64, $"Cubby:EvictionSamples must be between 1 and 64 (was {options.EvictionSamples}).");
        Require(options.ActiveExpiryInterval > TimeSpan.Zero, $"Cubby:ActiveExpiryInterval must be positive (was {options.ActiveExpiryInterval}).");
        Require(options.ActiveExpiryBudget > TimeSpan.Zero && options.ActiveExpiryBudget <= options.ActiveExpiryInterval, $"Cubby:ActiveExpiryBudget must be positive and at most Cubby:ActiveExpiryInterval (was {options.ActiveExpiryBudget}).");
        Require(options.FullSweepInterval > TimeSpan.Zero, $"Cubby:FullSweepInterval must be positive (was {options.FullSweepInterval}).");
        Require(options.Password is null || options.Password.Length > 0, "Cubby:Password must not be empty; remove it to disable AUTH.");
        Require(options.ShutdownTimeout > TimeSpan.Zero, $"Cubby:ShutdownTimeout must be positive (was {options.ShutdownTimeout}).");

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
