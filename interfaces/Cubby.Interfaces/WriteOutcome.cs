using Orleans;

namespace Cubby;

/// <summary>What a write did to the cache.</summary>
[GenerateSerializer]
public enum WriteOutcome
{
    /// <summary>The write was not applied because its condition (only-if-absent or only-if-present) did not hold.</summary>
    NotStored = 0,

    /// <summary>A new entry was created.</summary>
    Created = 1,

    /// <summary>An existing entry was replaced.</summary>
    Updated = 2,
}
