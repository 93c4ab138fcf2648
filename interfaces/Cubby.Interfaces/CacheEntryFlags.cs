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
}
