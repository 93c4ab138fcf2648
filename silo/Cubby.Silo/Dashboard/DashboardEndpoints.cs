using Cubby.Silo.Diagnostics;
using Cubby.Silo.Hosting;
using Microsoft.Extensions.Options;

namespace Cubby.Silo.Dashboard;

/// <summary>Maps <c>/metrics</c> and, unless disabled, <c>/dashboard</c>: the page, its files and its JSON API.</summary>
internal static class DashboardEndpoints
{
    private const int DefaultSeconds = 300;

    public static void Map(WebApplication app)
    {
        var options = app.Services.GetRequiredService<IOptions<SiloOptions>>().Value.Dashboard;
        var metrics = app.MapGet("/metrics", static (SiloRuntime silo, HttpResponse response) =>
        {
            response.Headers.CacheControl = "no-store";
            return Results.Text(PrometheusExposition.Write(silo), PrometheusExposition.ContentType);
        });
        if (options.ProtectMetrics && options.Password is { } metricsPassword)
        {
            metrics.AddEndpointFilterFactory((_, next) => BasicAuthentication.Require(metricsPassword, next));
        }

        if (!options.Enabled)
        {
            return;
        }

        var dashboard = app.MapGroup("/dashboard");
        if (options.Password is { } password)
        {
            dashboard.AddEndpointFilterFactory((_, next) => BasicAuthentication.Require(password, next));
        }

        // The page links its files relatively, so it also works behind a proxy that serves it under another path; that
        // needs the trailing slash, which routing does not tell apart, so the one endpoint redirects to add it.
        var assets = app.Services.GetRequiredService<DashboardAssets>();
        var page = assets["index.html"];
        dashboard.MapMethods("/", [HttpMethods.Get, HttpMethods.Head], (HttpRequest request) =>
            request.Path.Value?.EndsWith('/') == true ? page : Results.Redirect("dashboard/"));
        foreach (var name in assets.Names.Where(static name => name != "index.html"))
        {
            var asset = assets[name];
            dashboard.MapMethods("/" + name, [HttpMethods.Get, HttpMethods.Head], () => asset);
        }

        dashboard.MapGet("/api/cluster", static async (DashboardGatherer gatherer, HttpContext context, int? seconds) =>
        {
            if (seconds is < 0 or > SiloStats.MaxSeconds)
            {
                return Results.Problem($"seconds must be from 0 to {SiloStats.MaxSeconds}.", statusCode: StatusCodes.Status400BadRequest);
            }

            var report = await gatherer.GatherAsync(seconds ?? DefaultSeconds, context.RequestAborted).ConfigureAwait(false);
            context.Response.Headers.CacheControl = "no-store";
            DashboardHeaders.Apply(context.Response);
            return Results.Json(report, DashboardJson.Default.DashboardReport);
        });
    }
}
