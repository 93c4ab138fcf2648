namespace Cubby.Grains.Storage;

/// <summary>The expiry a write asks for.</summary>
/// <param name="ExpiresAt">Absolute expiry in Unix milliseconds, or 0 for none.</param>
/// <param name="SlidingWindow">Sliding window in milliseconds, or 0 for none.</param>
/// <param name="KeepExisting">Keep the expiry an existing entry already has (SET ... KEEPTTL).</param>
internal readonly record struct ExpirySpec(long ExpiresAt, long SlidingWindow = 0, bool KeepExisting = false)
{
    public static ExpirySpec Never => default;

    public static ExpirySpec Keep => new(0, 0, KeepExisting: true);
}
