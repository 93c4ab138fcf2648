using Cubby.Client;

namespace Cubby.SampleWeb;

/// <summary>Which silo owns a key: what the client routes by.</summary>
internal static class Owner
{
    public static async Task<IResult> GetAsync(string key, ICubbyClient cache, CancellationToken cancellationToken)
    {
        var owner = await cache.GetOwnerAsync(key, cancellationToken).ConfigureAwait(false);
        return Results.Ok(new { key, owner.Slot, silo = owner.Silo.ToString(), siloId = owner.Silo.Id, owner.ViewVersion });
    }
}
