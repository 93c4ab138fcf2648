using Cubby.Client;
using Cubby.Client.Caching;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using static Cubby.Tests.Client.AspireClientHost;

namespace Cubby.Tests.Client;

/// <summary><c>builder.AddCubbyClient("cache")</c>: the connection string an AppHost hands, the registrations, the one section.</summary>
public sealed class AspireClientTests
{
    [Fact]
    public async Task The_connection_string_reaches_a_live_silo_through_ICubbyClient_and_IDistributedCache()
    {
        await using var silo = await StartSiloAsync();
        var builder = CreateBuilder(silo);
        builder.Services.AddDistributedMemoryCache();
        builder.AddCubbyClient(ConnectionName);
        using var app = builder.Build();
        await app.StartAsync().WaitAsync(TestDeadlines.Phase);
        try
        {
            var options = app.Services.GetRequiredService<IOptions<CubbyClientOptions>>().Value;
            Assert.Equal(new[] { $"127.0.0.1:{silo.GatewayEndPoint.Port}" }, options.Endpoints);
            Assert.Equal(ClusterId, options.ClusterId);
            Assert.Equal(ServiceId, options.ServiceId);

            var client = app.Services.GetRequiredService<ICubbyClient>();
            await client.PutAsync("aspire:bytes", "v"u8.ToArray()).AsTask().WaitAsync(TestDeadlines.Call);
            Assert.Equal("v"u8.ToArray(), await client.GetAsync("aspire:bytes").AsTask().WaitAsync(TestDeadlines.Call));

            // The one call made Cubby the distributed cache, over the memory cache registered before.
            var cache = app.Services.GetRequiredService<IDistributedCache>();
            Assert.IsType<CubbyDistributedCache>(cache);
            Assert.Same(cache, app.Services.GetRequiredService<IBufferDistributedCache>());
            await cache.SetAsync("aspire:cache", [4, 2], new DistributedCacheEntryOptions()).WaitAsync(TestDeadlines.Call);
            Assert.Equal([4, 2], await client.GetAsync("aspire:cache").AsTask().WaitAsync(TestDeadlines.Call));
            await using var monitor = await silo.ConnectAsync();
            RespAssert.Bulk("v", await monitor.CallAsync("GET", "aspire:bytes"));
        }
        finally
        {
            await app.StopAsync().WaitAsync(TestDeadlines.Phase);
        }
    }

    [Fact]
    public void Settings_and_client_options_bind_from_Aspire_Cubby_Client_with_the_named_section_over_it()
    {
        var builder = CreateBuilder(new Dictionary<string, string?>
        {
            ["ConnectionStrings:cache"] = "Endpoints=127.0.0.1:30001;ClusterId=from-connection-string",
            ["Aspire:Cubby:Client:DisableHealthChecks"] = "true",
            ["Aspire:Cubby:Client:HealthCheckTimeout"] = "00:00:04",
            ["Aspire:Cubby:Client:OperationTimeout"] = "00:00:03",
            ["Aspire:Cubby:Client:ConnectTimeout"] = "00:00:09",
            ["Aspire:Cubby:Client:MaxValueBytes"] = "1024",
            ["Aspire:Cubby:Client:ClusterId"] = "from-section",
            ["Aspire:Cubby:Client:cache:MaxValueBytes"] = "2048",
            ["Aspire:Cubby:Client:cache:DisableMetrics"] = "true",
            ["Cubby:Client:MaxKeyBytes"] = "100",
        });
        Cubby.Aspire.Client.CubbyClientSettings? seen = null;
        builder.AddCubbyClient(ConnectionName, settings => seen = settings, options => options.MaxKeyBytes = 200);
        using var app = builder.Build();

        Assert.NotNull(seen);
        Assert.True(seen.DisableHealthChecks);
        Assert.True(seen.DisableMetrics);
        Assert.False(seen.DisableTracing);
        Assert.Equal(TimeSpan.FromSeconds(4), seen.HealthCheckTimeout);
        Assert.Equal("Endpoints=127.0.0.1:30001;ClusterId=from-connection-string", seen.ConnectionString);

        var options = app.Services.GetRequiredService<IOptions<CubbyClientOptions>>().Value;
        Assert.Equal(TimeSpan.FromSeconds(3), options.OperationTimeout);
        Assert.Equal(TimeSpan.FromSeconds(9), options.ConnectTimeout);
        Assert.Equal(2048, options.MaxValueBytes);
        Assert.Equal(new[] { "127.0.0.1:30001" }, options.Endpoints);

        // The connection string wins over the section, the code over everything.
        Assert.Equal("from-connection-string", options.ClusterId);
        Assert.Equal(200, options.MaxKeyBytes);

        Assert.DoesNotContain(app.Services.GetRequiredService<IOptions<HealthCheckServiceOptions>>().Value.Registrations, r => r.Name == "Cubby");
    }

    [Fact]
    public void The_health_check_is_registered_by_default_as_Cubby()
    {
        var builder = CreateBuilder(new Dictionary<string, string?> { ["ConnectionStrings:cache"] = "Endpoints=127.0.0.1:30001" });
        builder.AddCubbyClient(ConnectionName);
        using var app = builder.Build();

        Assert.Single(app.Services.GetRequiredService<IOptions<HealthCheckServiceOptions>>().Value.Registrations, r => r.Name == "Cubby");
    }

    [Fact]
    public void Without_ConnectionStrings_the_sections_ConnectionString_is_used_and_code_may_set_it()
    {
        var builder = CreateBuilder(new Dictionary<string, string?> { ["Aspire:Cubby:Client:ConnectionString"] = "127.0.0.1:30001,127.0.0.1:30002" });
        builder.AddCubbyClient(ConnectionName, settings => settings.ConnectionString += ",127.0.0.1:30003");
        using var app = builder.Build();

        Assert.Equal(
            new[] { "127.0.0.1:30001", "127.0.0.1:30002", "127.0.0.1:30003" },
            app.Services.GetRequiredService<IOptions<CubbyClientOptions>>().Value.Endpoints);
    }

    [Theory]
    [InlineData("ConnectionStrings:cache", "Endpoints=127.0.0.1:30001;Region=eu", "ConnectionStrings:cache", "'Region'")]
    [InlineData("ConnectionStrings:cache", "Endpoints=127.0.0.1:30001,not-an-endpoint", "ConnectionStrings:cache", "'not-an-endpoint' in Endpoints")]
    [InlineData("Aspire:Cubby:Client:ConnectionString", "ClusterId=", "Aspire:Cubby:Client:ConnectionString", "an empty ClusterId")]
    [InlineData("Aspire:Cubby:Client:cache:ConnectionString", "127.0.0.1:x", "Aspire:Cubby:Client:cache:ConnectionString", "'127.0.0.1:x'")]
    public void A_connection_string_that_cannot_be_read_fails_AddCubbyClient_naming_where_it_came_from_and_the_item(string setting, string value, string source, string item)
    {
        var builder = CreateBuilder(new Dictionary<string, string?> { [setting] = value });

        var error = Assert.Throws<InvalidOperationException>(() => builder.AddCubbyClient(ConnectionName));

        Assert.Contains(source, error.Message, StringComparison.Ordinal);
        Assert.Contains(item, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_second_call_fails_naming_the_first_connection()
    {
        var builder = CreateBuilder(new Dictionary<string, string?> { ["ConnectionStrings:cache"] = "Endpoints=127.0.0.1:30001" });
        builder.AddCubbyClient(ConnectionName);

        var error = Assert.Throws<InvalidOperationException>(() => builder.AddCubbyClient("other"));

        Assert.Contains("AddCubbyClient(\"cache\")", error.Message, StringComparison.Ordinal);
    }
}
