using Cubby.Client;

namespace Cubby.SampleWeb;

/// <summary>Counting primes: slow enough to be worth caching, with a result anyone can check.</summary>
internal static class Primes
{
    public const int MaxLimit = 50_000_000;
    private static readonly CacheEntryOptions Expiry = CacheEntryOptions.ExpiresIn(TimeSpan.FromMinutes(10));

    /// <summary>The cache key of a count, so <c>redis-cli GET primes:1000</c> shows what the app cached.</summary>
    public static string KeyOf(int limit) => $"primes:{limit}";

    public static async Task<IResult> GetAsync(int limit, ICubbyClient cache, CancellationToken cancellationToken)
    {
        if (limit is < 2 or > MaxLimit)
        {
            return Results.Problem($"limit must be from 2 to {MaxLimit} (was {limit}).", statusCode: StatusCodes.Status400BadRequest);
        }

        var computedNow = false;
        var count = await cache.GetOrCreateAsync(KeyOf(limit), _ =>
        {
            computedNow = true;
            return ValueTask.FromResult(Count(limit));
        }, Expiry, cancellationToken).ConfigureAwait(false);
        return Results.Ok(new { key = KeyOf(limit), computedNow, count });
    }

    /// <summary>The sieve of Eratosthenes up to <paramref name="limit"/>.</summary>
    public static PrimeCount Count(int limit)
    {
        var started = TimeProvider.System.GetTimestamp();
        var composite = new bool[limit + 1];
        var count = 0;
        var largest = 0;
        for (var n = 2; n <= limit; n++)
        {
            if (composite[n])
            {
                continue;
            }

            count++;
            largest = n;
            for (var multiple = (long)n * n; multiple <= limit; multiple += n)
            {
                composite[multiple] = true;
            }
        }

        return new PrimeCount(limit, count, largest, TimeProvider.System.GetElapsedTime(started).TotalMilliseconds);
    }
}

/// <summary>How many primes there are up to a limit, and how long counting them took.</summary>
internal sealed record PrimeCount(int Limit, int Count, int Largest, double ComputeMilliseconds);
