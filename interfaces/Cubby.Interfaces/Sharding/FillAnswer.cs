using Orleans;

namespace Cubby.Sharding;

/// <summary>What a shard answers a caller that missed a key and would run the factory that fills it.</summary>
[GenerateSerializer]
public enum FillStatus
{
    /// <summary>The key has an entry (perhaps written by another filler meanwhile): read it.</summary>
    Found,

    /// <summary>The caller holds the lease: it runs its factory and writes the key, or gives the lease up.</summary>
    Granted,

    /// <summary>Another caller fills the key and has not finished within the wait: ask again.</summary>
    Busy,
}

/// <summary>A shard's answer to <see cref="IShardGrain.Fill"/>.</summary>
/// <param name="Status">What the caller does next.</param>
/// <param name="Entry">The entry, when <paramref name="Status"/> is <see cref="FillStatus.Found"/>.</param>
[GenerateSerializer, Immutable]
public sealed record FillAnswer([property: Id(0)] FillStatus Status, [property: Id(1)] ShardEntry? Entry = null)
{
    /// <summary>The caller holds the lease.</summary>
    public static FillAnswer Granted { get; } = new(FillStatus.Granted);

    /// <summary>Another caller still fills the key.</summary>
    public static FillAnswer Busy { get; } = new(FillStatus.Busy);
}
