using System.Net;
using Cubby.Tests.Infrastructure;
using Cubby.Tests.Metrics;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Dashboard;

/// <summary><c>Cubby:Dashboard:Password</c> guards the dashboard and its API with HTTP Basic; <c>/metrics</c> only when asked.</summary>
public sealed class DashboardAuthTests
{
    private const string Password = "dashboard-secret";

    [Theory]
    [InlineData("/dashboard")]
    [InlineData("/dashboard/")]
    [InlineData("/dashboard/dashboard.js")]
    [InlineData("/dashboard/api/cluster")]
    public async Task Without_the_password_the_dashboard_answers_401_with_a_Basic_challenge(string path)
    {
        await using var silo = await TestSilo.StartAsync(options => options.Dashboard.Password = Password);
        using var http = DashboardHttp.For(silo.Endpoints.Http);

        using var anonymous = await DashboardHttp.GetAsync(http, path);
        Assert.Equal(HttpStatusCode.Unauthorized, anonymous.StatusCode);
        Assert.Equal("Basic", Assert.Single(anonymous.Headers.WwwAuthenticate).Scheme);
        Assert.Contains("realm=\"Cubby\"", anonymous.Headers.WwwAuthenticate.ToString(), StringComparison.Ordinal);

        using var wrong = await DashboardHttp.GetAsync(http, path, "not-it");
        Assert.Equal(HttpStatusCode.Unauthorized, wrong.StatusCode);

        using var right = await DashboardHttp.GetAsync(http, path, Password, user: "anyone");
        Assert.True(right.StatusCode is HttpStatusCode.OK or HttpStatusCode.Found, $"{path} with the password answered {right.StatusCode}");
    }

    [Fact]
    public async Task The_page_and_api_answer_200_with_the_password_and_metrics_stay_open()
    {
        await using var silo = await TestSilo.StartAsync(options => options.Dashboard.Password = Password);
        using var http = DashboardHttp.For(silo.Endpoints.Http);

        using var page = await DashboardHttp.GetAsync(http, "/dashboard/", Password);
        Assert.Equal(HttpStatusCode.OK, page.StatusCode);
        Assert.Equal("text/html", page.Content.Headers.ContentType?.MediaType);
        using var api = await DashboardHttp.GetAsync(http, "/dashboard/api/cluster", Password);
        Assert.Equal(HttpStatusCode.OK, api.StatusCode);
        Assert.Equal("application/json", api.Content.Headers.ContentType?.MediaType);

        using var metrics = await DashboardHttp.GetAsync(http, "/metrics");
        Assert.Equal(HttpStatusCode.OK, metrics.StatusCode);
    }

    [Fact]
    public async Task ProtectMetrics_puts_metrics_behind_the_password_too()
    {
        await using var silo = await TestSilo.StartAsync(options =>
        {
            options.Dashboard.Password = Password;
            options.Dashboard.ProtectMetrics = true;
        });
        using var http = DashboardHttp.For(silo.Endpoints.Http);

        using var anonymous = await DashboardHttp.GetAsync(http, "/metrics");
        Assert.Equal(HttpStatusCode.Unauthorized, anonymous.StatusCode);
        Assert.Contains("cubby_commands_total", await PrometheusText.ReadAsync(http, Password), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_a_password_the_dashboard_is_open_and_can_be_turned_off()
    {
        await using var open = await TestSilo.StartAsync();
        using var openHttp = DashboardHttp.For(open.Endpoints.Http);
        using var page = await DashboardHttp.GetAsync(openHttp, "/dashboard/");
        Assert.Equal(HttpStatusCode.OK, page.StatusCode);

        await using var off = await TestSilo.StartAsync(options => options.Dashboard.Enabled = false);
        using var offHttp = DashboardHttp.For(off.Endpoints.Http);
        using var missing = await DashboardHttp.GetAsync(offHttp, "/dashboard/");
        Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);
        using var metrics = await DashboardHttp.GetAsync(offHttp, "/metrics");
        Assert.Equal(HttpStatusCode.OK, metrics.StatusCode);
    }

    [Theory]
    [InlineData(" ", false, "Cubby:Dashboard:Password")]
    [InlineData(null, true, "Cubby:Dashboard:ProtectMetrics")]
    public async Task Bad_settings_stop_the_silo_naming_the_setting(string? password, bool protectMetrics, string setting)
    {
        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => TestSilo.StartAsync(options =>
        {
            options.Dashboard.Password = password;
            options.Dashboard.ProtectMetrics = protectMetrics;
        }));
        Assert.Contains(setting, error.Message, StringComparison.Ordinal);
    }
}
