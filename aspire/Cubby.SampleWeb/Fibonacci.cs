using Microsoft.Extensions.Caching.Hybrid;

namespace Cubby.SampleWeb;

/// <summary>
/// Cubby's HybridCache: a value one instance computed is stored in Cubby before the reply, so it is every other
/// instance's hit; each instance then keeps it in memory, dropped as soon as any instance writes or removes it.
/// </summary>
internal static class Fibonacci
{
    public const int MaxIndex = 90;
    private static readonly HybridCacheEntryOptions Expiry = new() { Expiration = TimeSpan.FromMinutes(10), LocalCacheExpiration = TimeSpan.FromMinutes(1) };

    /// <summary>The cache key, so <c>redis-cli GET fibonacci:80</c> shows what HybridCache stored in Cubby.</summary>
    public static string KeyOf(int index) => $"fibonacci:{index}";

    public static async Task<IResult> GetAsync(int index, HybridCache cache, CancellationToken cancellationToken)
    {
        if (index is < 0 or > MaxIndex)
        {
            return Results.Problem($"index must be from 0 to {MaxIndex} (was {index}).", statusCode: StatusCodes.Status400BadRequest);
        }

        var computedNow = false;
        var value = await cache.GetOrCreateAsync(KeyOf(index), index, (n, _) =>
        {
            computedNow = true;
            return ValueTask.FromResult(Compute(n));
        }, Expiry, cancellationToken: cancellationToken).ConfigureAwait(false);
        return Results.Ok(new { key = KeyOf(index), computedNow, value });
    }

    private static long Compute(int index)
    {
        long previous = 0;
        long current = index == 0 ? 0 : 1;
        for (var i = 2; i <= index; i++)
        {
            (previous, current) = (current, previous + current);
        }

        return current;
    }
}
