namespace Cubby.Client;

/// <summary>An entry as read: its value (decompressed), its flags and how long it has left to live.</summary>
/// <param name="Value">The value.</param>
/// <param name="Flags">The flags it was stored with.</param>
/// <param name="TimeToLive">Time left before it expires, or null when it never does.</param>
public sealed record CacheEntry(byte[] Value, CacheEntryFlags Flags, TimeSpan? TimeToLive);
