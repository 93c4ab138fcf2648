using System.Net;
using Cubby.Tests.Infrastructure;
using Cubby.Tests.Metrics;
using Microsoft.AspNetCore.Authentication.Cookies;
using Microsoft.AspNetCore.Authorization;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Dashboard;

/// <summary>
/// <c>Cubby:Dashboard:Password</c> guards the Orleans dashboard, the cache page and their APIs with HTTP Basic, or the
/// host's own ASP.NET Core policy does (<c>Cubby:Dashboard:AuthorizationPolicy</c>); <c>/metrics</c> only when asked.
/// </summary>
public sealed class DashboardAuthTests
{
    private const string Password = "dashboard-secret";

    [Theory]
    [InlineData("/dashboard")]
    [InlineData("/dashboard/")]
    [InlineData("/dashboard/index.min.js")]
    [InlineData("/dashboard/ClusterStats")]
    [InlineData("/dashboard/DashboardCounters")]
    [InlineData("/dashboard/cache")]
    [InlineData("/dashboard/cache/")]
    [InlineData("/dashboard/cache/cache.js")]
    [InlineData("/dashboard/cache/api/silos")]
    public async Task Without_the_password_the_dashboard_answers_401_with_a_Basic_challenge(string path)
    {
        await using var silo = await DashboardSilo.StartAsync(options => options.Dashboard.Password = Password);
        using var http = DashboardHttp.For(silo.Endpoints.Http);

        using var anonymous = await DashboardHttp.GetAsync(http, path);
        Assert.Equal(HttpStatusCode.Unauthorized, anonymous.StatusCode);
        Assert.Equal("Basic", Assert.Single(anonymous.Headers.WwwAuthenticate).Scheme);
        Assert.Contains("realm=\"Cubby\"", anonymous.Headers.WwwAuthenticate.ToString(), StringComparison.Ordinal);

        using var wrong = await DashboardHttp.GetAsync(http, path, "not-it");
        Assert.Equal(HttpStatusCode.Unauthorized, wrong.StatusCode);

        using var right = await DashboardHttp.GetAsync(http, path, Password, user: "anyone");
        Assert.True(right.StatusCode is HttpStatusCode.OK or HttpStatusCode.Found or HttpStatusCode.MovedPermanently, $"{path} with the password answered {right.StatusCode}");
    }

    [Fact]
    public async Task The_pages_and_api_answer_200_with_the_password_and_metrics_stay_open()
    {
        await using var silo = await DashboardSilo.StartAsync(options => options.Dashboard.Password = Password);
        using var http = DashboardHttp.For(silo.Endpoints.Http);

        foreach (var path in new[] { "/dashboard/", "/dashboard/cache/" })
        {
            using var page = await DashboardHttp.GetAsync(http, path, Password);
            Assert.Equal(HttpStatusCode.OK, page.StatusCode);
            Assert.Equal("text/html", page.Content.Headers.ContentType?.MediaType);
        }

        using var api = await DashboardHttp.GetAsync(http, "/dashboard/cache/api/silos", Password);
        Assert.Equal(HttpStatusCode.OK, api.StatusCode);
        Assert.Equal("application/json", api.Content.Headers.ContentType?.MediaType);

        using var metrics = await DashboardHttp.GetAsync(http, "/metrics");
        Assert.Equal(HttpStatusCode.OK, metrics.StatusCode);
    }

    [Fact]
    public async Task ProtectMetrics_puts_metrics_behind_the_password_too()
    {
        await using var silo = await DashboardSilo.StartAsync(options =>
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
    public async Task Without_a_password_the_dashboard_is_open_when_turned_on_and_absent_by_default()
    {
        await using var open = await DashboardSilo.StartAsync();
        using var openHttp = DashboardHttp.For(open.Endpoints.Http);
        foreach (var path in new[] { "/dashboard/", "/dashboard/cache/" })
        {
            using var page = await DashboardHttp.GetAsync(openHttp, path);
            Assert.Equal(HttpStatusCode.OK, page.StatusCode);
        }

        await using var off = await TestSilo.StartAsync();
        using var offHttp = DashboardHttp.For(off.Endpoints.Http);
        foreach (var path in new[] { "/dashboard/", "/dashboard/cache/", "/dashboard/DashboardCounters" })
        {
            using var missing = await DashboardHttp.GetAsync(offHttp, path);
            Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);
        }
        using var metrics = await DashboardHttp.GetAsync(offHttp, "/metrics");
        Assert.Equal(HttpStatusCode.OK, metrics.StatusCode);
    }

    [Fact]
    public async Task The_hosts_own_authorization_policy_guards_the_dashboards_and_metrics()
    {
        // The host's authentication (cookies, sending anonymous callers to its login page) and its policy (here, a
        // header its proxy sets for operators); Cubby only names the policy.
        await using var silo = await DashboardSilo.StartAsync(
            options =>
            {
                options.Dashboard.AuthorizationPolicy = "operators";
                options.Dashboard.ProtectMetrics = true;
            },
            services: services =>
            {
                services.AddAuthentication(CookieAuthenticationDefaults.AuthenticationScheme).AddCookie(cookies => cookies.LoginPath = "/login");
                services.AddAuthorizationBuilder().AddPolicy("operators", policy => policy.RequireAssertion(context =>
                    context.Resource is HttpContext http && http.Request.Headers["X-Operator"] == "yes"));
            });
        using var http = DashboardHttp.For(silo.Endpoints.Http);

        foreach (var path in new[] { "/dashboard/", "/dashboard/DashboardCounters", "/dashboard/cache/", "/dashboard/cache/api/silos", "/metrics" })
        {
            using var anonymous = await DashboardHttp.GetAsync(http, path);
            Assert.Equal(HttpStatusCode.Found, anonymous.StatusCode);
            Assert.Equal("/login", anonymous.Headers.Location?.AbsolutePath);

            using var operatorRequest = new HttpRequestMessage(HttpMethod.Get, path);
            operatorRequest.Headers.Add("X-Operator", "yes");
            using var allowed = await http.SendAsync(operatorRequest);
            Assert.Equal(HttpStatusCode.OK, allowed.StatusCode);
        }
    }

    [Theory]
    [InlineData(" ", null, false, "Cubby:Dashboard:Password")]
    [InlineData(null, " ", false, "Cubby:Dashboard:AuthorizationPolicy")]
    [InlineData(Password, "operators", false, "both set")]
    [InlineData(null, null, true, "Cubby:Dashboard:ProtectMetrics")]
    public async Task Bad_settings_stop_the_silo_naming_the_setting(string? password, string? policy, bool protectMetrics, string setting)
    {
        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => DashboardSilo.StartAsync(options =>
        {
            options.Dashboard.Password = password;
            options.Dashboard.AuthorizationPolicy = policy;
            options.Dashboard.ProtectMetrics = protectMetrics;
        }));
        Assert.Contains(setting, error.Message, StringComparison.Ordinal);
    }
}
