using Orleans;

namespace Cubby.Sharding;

/// <summary>What an entry's value holds, as Redis's TYPE names it.</summary>
[GenerateSerializer]
public enum EntryKind : byte
{
    /// <summary>Bytes: what SET, APPEND and INCR write.</summary>
    String = 0,

    /// <summary>Fields and their values (HSET), in Cubby's hash encoding.</summary>
    Hash = 1,
}
