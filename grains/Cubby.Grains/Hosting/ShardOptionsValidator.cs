using Microsoft.Extensions.Options;

namespace Cubby.Grains.Hosting;

/// <summary>Checks <see cref="ShardOptions"/> at start, naming the setting that is wrong.</summary>
internal static class ShardOptionsValidator
{
    public static void Validate(ShardOptions options, Action<bool, string> require)
    {
        require(options.SlotCount is >= 1 and <= Sharding.ShardMap.MaxSlotCount, $"Cubby:SlotCount must be between 1 and {Sharding.ShardMap.MaxSlotCount} (was {options.SlotCount}).");
        require(options.MaxKeyBytes is >= 1 and <= 512 * 1024 * 1024, $"Cubby:MaxKeyBytes must be between 1 and 536870912 (was {options.MaxKeyBytes}).");
        require(options.MaxValueBytes is >= 1 and <= 512 * 1024 * 1024, $"Cubby:MaxValueBytes must be between 1 and 536870912 (was {options.MaxValueBytes}).");
        require(options.MaxMemoryBytes >= 0, $"Cubby:MaxMemoryBytes must be 0 (half the available memory) or positive (was {options.MaxMemoryBytes}).");
        require(options.KeptForReuseBytes is null || (options.KeptForReuseBytes >= 0 && options.KeptForReuseBytes <= options.EffectiveMaxMemoryBytes / 2), $"Cubby:KeptForReuseBytes must be between 0 and half of Cubby:MaxMemoryBytes (was {options.KeptForReuseBytes}).");
        require(Enum.IsDefined(options.Store), $"Cubby:Store must be Native or Managed (was {options.Store}).");
        require(options.NativeHeapTrimInterval >= TimeSpan.Zero, $"Cubby:NativeHeapTrimInterval must be 0 (off) or positive (was {options.NativeHeapTrimInterval}).");
        require(options.EvictionSamples is >= 1 and <= 64, $"Cubby:EvictionSamples must be between 1 and 64 (was {options.EvictionSamples}).");
        require(options.ActiveExpiryInterval > TimeSpan.Zero, $"Cubby:ActiveExpiryInterval must be positive (was {options.ActiveExpiryInterval}).");
        require(options.ActiveExpiryBudget > TimeSpan.Zero && options.ActiveExpiryBudget <= options.ActiveExpiryInterval, $"Cubby:ActiveExpiryBudget must be positive and at most Cubby:ActiveExpiryInterval (was {options.ActiveExpiryBudget}).");
        require(options.ActiveExpirySamples is >= 1 and <= 1000, $"Cubby:ActiveExpirySamples must be between 1 and 1000 (was {options.ActiveExpirySamples}).");
        require(string.IsNullOrEmpty(options.Persistence.Directory) || !string.IsNullOrWhiteSpace(options.Persistence.Directory), "Cubby:Persistence:Directory must name a folder when it is set (was only spaces).");
        require(options.Persistence.FlushInterval >= TimeSpan.Zero && options.Persistence.FlushInterval <= TimeSpan.FromHours(1), $"Cubby:Persistence:FlushInterval must be from 0 (every write waits for the disk) to 1 hour (was {options.Persistence.FlushInterval}).");
        require(options.Persistence.ChangesFileMinBytes >= 4096, $"Cubby:Persistence:ChangesFileMinBytes must be at least 4096 (was {options.Persistence.ChangesFileMinBytes}).");
        require(options.Replicas is >= 0 and <= 2, $"Cubby:Replicas must be 0, 1 or 2 (was {options.Replicas}).");
        require(options.TrackingTableMaxKeys >= 0, $"Cubby:TrackingTableMaxKeys must be 0 (no limit) or more (was {options.TrackingTableMaxKeys}).");
        require(options.FullSweepInterval > TimeSpan.Zero, $"Cubby:FullSweepInterval must be positive (was {options.FullSweepInterval}).");
    }

    /// <summary>Checks the options now, as a silo is built, throwing with every failure.</summary>
    /// <exception cref="OptionsValidationException">A setting is out of range.</exception>
    public static void ThrowIfInvalid(ShardOptions options)
    {
        if (options.Problems() is { Count: > 0 } problems)
        {
            throw new OptionsValidationException(Options.DefaultName, typeof(ShardOptions), problems);
        }
    }
}
