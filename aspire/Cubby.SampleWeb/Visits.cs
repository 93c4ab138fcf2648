namespace Cubby.SampleWeb;

/// <summary>A per-session visit counter: ASP.NET Core sessions kept in Cubby through <c>IDistributedCache</c>.</summary>
internal static class Visits
{
    private const string CounterKey = "visits";

    public static async Task<IResult> CountAsync(HttpContext context, CancellationToken cancellationToken)
    {
        var session = context.Session;
        await session.LoadAsync(cancellationToken).ConfigureAwait(false);
        var visits = (session.GetInt32(CounterKey) ?? 0) + 1;
        session.SetInt32(CounterKey, visits);
        await session.CommitAsync(cancellationToken).ConfigureAwait(false);
        return Results.Ok(new { session = session.Id, visits });
    }
}
