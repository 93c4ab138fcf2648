using Cubby.Client;

namespace Cubby.SampleWeb;

/// <summary>Which slot holds a key, and the silo where that slot's shard is active, as the shard answers.</summary>
internal static class Owner
{
    public static async Task<IResult> GetAsync(string key, ICubbyClient cache, CancellationToken cancellationToken)
    {
        var owner = await cache.GetOwnerAsync(key, cancellationToken).ConfigureAwait(false);
        return Results.Ok(new { key, owner.Slot, owner.Silo });
    }
}
