using Orleans;

namespace Cubby;

/// <summary>Flags stored with an entry and returned with it, so every client can interpret the value the same way.</summary>
[Flags]
[GenerateSerializer]
public enum CacheEntryFlags : uint
{
    /// <summary>No flags.</summary>
    None = 0,

    /// <summary>The value is Brotli-compressed; readers decompress it.</summary>
    Compressed = 1,

    /// <summary>
    /// The value starts with the epochs of the tags it was written with (set by the client for entries written with
    /// tags); clients read the value behind them, and nothing once one of the tags was removed.
    /// </summary>
    Tagged = 2,
}
