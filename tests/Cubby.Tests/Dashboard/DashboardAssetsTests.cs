using System.Net;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Dashboard;

/// <summary>
/// The cache page's embedded files (content types, revalidation by entity tag, nothing from elsewhere) and the Orleans
/// dashboard's page with its link to them.
/// </summary>
public sealed class DashboardAssetsTests
{
    [Theory]
    [InlineData("/dashboard/cache/", "text/html")]
    [InlineData("/dashboard/cache/cache.js", "text/javascript")]
    [InlineData("/dashboard/cache/cache.css", "text/css")]
    public async Task Cache_page_files_are_served_with_their_type_and_revalidated_by_etag(string path, string mediaType)
    {
        await using var silo = await DashboardSilo.StartAsync();
        using var http = DashboardHttp.For(silo.Endpoints.Http);

        using var first = await DashboardHttp.GetAsync(http, path);
        Assert.Equal(HttpStatusCode.OK, first.StatusCode);
        Assert.Equal(mediaType, first.Content.Headers.ContentType?.MediaType);
        Assert.True(first.Headers.CacheControl?.NoCache);
        var tag = Assert.IsType<System.Net.Http.Headers.EntityTagHeaderValue>(first.Headers.ETag);
        var body = await first.Content.ReadAsStringAsync();
        Assert.DoesNotContain("http://", body, StringComparison.Ordinal);
        Assert.DoesNotContain("https://", body, StringComparison.Ordinal);

        using var again = new HttpRequestMessage(HttpMethod.Get, path);
        again.Headers.IfNoneMatch.Add(tag);
        using var revalidated = await http.SendAsync(again);
        Assert.Equal(HttpStatusCode.NotModified, revalidated.StatusCode);
    }

    [Theory]
    [InlineData("/dashboard", "/dashboard/")]
    [InlineData("/dashboard/cache", "/dashboard/cache/")]
    public async Task Each_page_is_reached_without_its_trailing_slash(string path, string target)
    {
        await using var silo = await DashboardSilo.StartAsync();
        using var http = DashboardHttp.For(silo.Endpoints.Http);
        using var response = await DashboardHttp.GetAsync(http, path);
        Assert.True(response.StatusCode is HttpStatusCode.Found or HttpStatusCode.MovedPermanently, $"{path} answered {response.StatusCode}");
        Assert.Equal(target, new Uri(new Uri(http.BaseAddress!, path), response.Headers.Location!).AbsolutePath);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("gzip, br")]
    public async Task The_Orleans_dashboard_links_to_the_cache_page_in_its_menu(string? acceptEncoding)
    {
        await using var silo = await DashboardSilo.StartAsync();
        using var http = DashboardHttp.For(silo.Endpoints.Http);
        using var request = new HttpRequestMessage(HttpMethod.Get, "/dashboard/");
        if (acceptEncoding is not null)
        {
            request.Headers.TryAddWithoutValidation("Accept-Encoding", acceptEncoding);
        }

        using var response = await http.SendAsync(request);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("text/html", response.Content.Headers.ContentType?.MediaType);
        var html = await response.Content.ReadAsStringAsync();
        Assert.Contains("<title>Orleans Dashboard</title>", html, StringComparison.Ordinal);
        Assert.Contains("<a href=\"cache/\" class=\"nav-link\">", html, StringComparison.Ordinal);
        Assert.True(html.IndexOf("id=\"cubby-menu\"", StringComparison.Ordinal) < html.IndexOf("<div id=\"menu\">", StringComparison.Ordinal), "The cache entry is not beside the Orleans menu.");

        // The dashboard's own files are untouched.
        using var script = await DashboardHttp.GetAsync(http, "/dashboard/index.min.js");
        Assert.Equal(HttpStatusCode.OK, script.StatusCode);
        Assert.DoesNotContain("cubby-menu", await script.Content.ReadAsStringAsync(), StringComparison.Ordinal);
    }
}
