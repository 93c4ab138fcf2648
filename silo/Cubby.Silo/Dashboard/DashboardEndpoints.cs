using Cubby.Silo.Diagnostics;
using Cubby.Silo.Hosting;
using Microsoft.Extensions.Options;
using Orleans.Dashboard;

namespace Cubby.Silo.Dashboard;

/// <summary>
/// Maps <c>/metrics</c> and, unless disabled, the Orleans dashboard at <c>/dashboard</c> and Cubby's cache page at
/// <c>/dashboard/cache</c> (its files and its JSON API), all behind the configured protection.
/// </summary>
internal static class DashboardEndpoints
{
    public const string OrleansPath = "/dashboard";
    public const string CachePath = "/dashboard/cache";

    private const int DefaultSeconds = 300;

    public static void Map(WebApplication app)
    {
        var options = app.Services.GetRequiredService<IOptions<SiloOptions>>().Value.Dashboard;
        var metrics = app.MapGet("/metrics", static (SiloRuntime silo, HttpResponse response) =>
        {
            response.Headers.CacheControl = "no-store";
            return Results.Text(PrometheusExposition.Write(silo), PrometheusExposition.ContentType);
        });
        if (options.ProtectMetrics)
        {
            DashboardAuthentication.Protect(metrics, options);
        }

        if (!options.Enabled)
        {
            return;
        }

        DashboardAuthentication.Protect(app.MapOrleansDashboard(OrleansPath).AddCacheLink(), options);
        MapCachePage(DashboardAuthentication.Protect(app.MapGroup(CachePath), options), app.Services.GetRequiredService<DashboardAssets>());
    }

    private static void MapCachePage(RouteGroupBuilder cache, DashboardAssets assets)
    {
        // The page links its files relatively, so it also works behind a proxy that serves it under another path; that
        // needs the trailing slash, which routing does not tell apart, so the one endpoint redirects to add it.
        var page = assets["index.html"];
        cache.MapMethods("/", [HttpMethods.Get, HttpMethods.Head], (HttpRequest request) =>
            request.Path.Value?.EndsWith('/') == true ? page : Results.Redirect("cache/"));
        foreach (var name in assets.Names.Where(static name => name != "index.html"))
        {
            var asset = assets[name];
            cache.MapMethods("/" + name, [HttpMethods.Get, HttpMethods.Head], () => asset);
        }

        cache.MapGet("/api/silos", static async (CacheReportGatherer gatherer, HttpResponse response, int? seconds) =>
        {
            if (seconds is < 0 or > SiloStats.MaxSeconds)
            {
                return Results.Problem($"seconds must be from 0 to {SiloStats.MaxSeconds}.", statusCode: StatusCodes.Status400BadRequest);
            }

            var report = await gatherer.GatherAsync(seconds ?? DefaultSeconds).ConfigureAwait(false);
            response.Headers.CacheControl = "no-store";
            DashboardHeaders.Apply(response);
            return Results.Json(report, DashboardJson.Default.CacheReport);
        });
    }
}
