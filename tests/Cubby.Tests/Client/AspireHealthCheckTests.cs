using System.Diagnostics;
using Cubby.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using static Cubby.Tests.Client.AspireClientHost;

namespace Cubby.Tests.Client;

/// <summary>The <c>Cubby</c> health check that <c>builder.AddCubbyClient("cache")</c> registers: a real call to the cluster.</summary>
public sealed class AspireHealthCheckTests
{
    [Fact]
    public async Task It_is_Healthy_against_a_live_silo_and_says_which_silo_answered()
    {
        await using var silo = await StartSiloAsync();
        var builder = CreateBuilder(silo, new() { ["Aspire:Cubby:Client:HealthCheckTimeout"] = "00:00:10" });
        builder.AddCubbyClient(ConnectionName);
        using var app = builder.Build();

        var report = await CheckAsync(app);

        var entry = report.Entries["Cubby"];
        Assert.True(entry.Status == HealthStatus.Healthy, entry.Description);
        Assert.Equal(silo.SiloEndpoint.ToString(), entry.Data["silo"]);
        Assert.Contains(silo.SiloEndpoint.ToString(), entry.Description, StringComparison.Ordinal);
    }

    [Fact]
    public async Task It_is_Unhealthy_within_its_timeout_when_nobody_listens_at_the_gateway()
    {
        var port = SiloProcess.FreePort();
        using var app = BuildAgainstNobody(port, new() { ["Aspire:Cubby:Client:HealthCheckTimeout"] = "00:00:01" });

        var clock = Stopwatch.StartNew();
        var report = await CheckAsync(app);

        var entry = report.Entries["Cubby"];
        Assert.Equal(HealthStatus.Unhealthy, entry.Status);
        Assert.Contains("did not answer within 1 s", entry.Description, StringComparison.Ordinal);
        Assert.Contains("Aspire:Cubby:Client:HealthCheckTimeout", entry.Description, StringComparison.Ordinal);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(1) + TestDeadlines.Call / 2, $"took {clock.Elapsed}");
    }

    [Fact]
    public async Task It_is_Unhealthy_with_the_failures_message_when_the_client_gives_up_first()
    {
        var port = SiloProcess.FreePort();
        using var app = BuildAgainstNobody(port, new()
        {
            ["Aspire:Cubby:Client:ConnectTimeout"] = "00:00:00.5",
            ["Aspire:Cubby:Client:HealthCheckTimeout"] = "00:00:20",
        });

        var clock = Stopwatch.StartNew();
        var report = await CheckAsync(app);

        var entry = report.Entries["Cubby"];
        Assert.Equal(HealthStatus.Unhealthy, entry.Status);
        Assert.IsType<CubbyConnectionException>(entry.Exception);
        Assert.Equal(entry.Exception.Message, entry.Description);
        Assert.Contains($"127.0.0.1:{port}", entry.Description, StringComparison.Ordinal);
        Assert.Contains("Cubby:Client:ConnectTimeout", entry.Description, StringComparison.Ordinal);
        Assert.True(clock.Elapsed < TestDeadlines.Call, $"took {clock.Elapsed}");
    }

    /// <summary>An app whose connection string names a gateway at <paramref name="port"/>, where nobody listens.</summary>
    private static IHost BuildAgainstNobody(int port, Dictionary<string, string?> settings)
    {
        settings["ConnectionStrings:cache"] = $"Endpoints=127.0.0.1:{port}";
        var builder = CreateBuilder(settings);
        builder.AddCubbyClient(ConnectionName);
        return builder.Build();
    }

    private static Task<HealthReport> CheckAsync(IHost app) =>
        app.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync(check => check.Name == "Cubby").WaitAsync(TestDeadlines.Phase);
}
