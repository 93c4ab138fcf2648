using System.Net;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Dashboard;

/// <summary>The embedded page and its files: content types, revalidation by entity tag, and nothing from elsewhere.</summary>
public sealed class DashboardAssetsTests
{
    [Theory]
    [InlineData("/dashboard/", "text/html")]
    [InlineData("/dashboard/dashboard.js", "text/javascript")]
    [InlineData("/dashboard/dashboard.css", "text/css")]
    public async Task Files_are_served_with_their_type_and_revalidated_by_etag(string path, string mediaType)
    {
        await using var silo = await TestSilo.StartAsync();
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

    [Fact]
    public async Task The_page_is_reached_from_dashboard_without_a_slash()
    {
        await using var silo = await TestSilo.StartAsync();
        using var http = DashboardHttp.For(silo.Endpoints.Http);
        using var response = await DashboardHttp.GetAsync(http, "/dashboard");
        Assert.Equal(HttpStatusCode.Found, response.StatusCode);
        Assert.Equal("/dashboard/", new Uri(new Uri(http.BaseAddress!, "/dashboard"), response.Headers.Location!).AbsolutePath);
    }
}
