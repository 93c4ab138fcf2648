using Cubby.Client;
using Cubby.Client.Caching;
using Cubby.Client.Serialization;
using Cubby.Tests.Infrastructure;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Client;

/// <summary>Registering the client and the distributed cache, binding their options and validating them at start.</summary>
public sealed class DependencyInjectionTests
{
    [Fact]
    public async Task AddCubbyClient_binds_the_Cubby_Client_configuration_section()
    {
        await using var silo = await TestSilo.StartAsync();
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Cubby:Client:Endpoints:0"] = $"127.0.0.1:{silo.GatewayEndPoint.Port}",
            ["Cubby:Client:ClusterId"] = "cubby",
            ["Cubby:Client:ServiceId"] = "cubby",
            ["Cubby:Client:ConnectTimeout"] = "00:00:07",
            ["Cubby:Client:OperationTimeout"] = "00:00:02",
            ["Cubby:Client:SlotCount"] = "1024",
            ["Cubby:Client:MaxKeyBytes"] = "100",
            ["Cubby:Client:MaxValueBytes"] = "2048",
            ["Cubby:Other"] = "ignored",
        }).Build();
        var services = new ServiceCollection();
        services.AddSingleton<IConfiguration>(configuration);
        services.AddCubbyClient(o => o.MaxValueBytes = 4096);
        await using var provider = services.BuildServiceProvider();

        var options = provider.GetRequiredService<IOptions<CubbyClientOptions>>().Value;
        Assert.Equal(new[] { $"127.0.0.1:{silo.GatewayEndPoint.Port}" }, options.Endpoints);
        Assert.Equal("cubby", options.ClusterId);
        Assert.Equal(TimeSpan.FromSeconds(7), options.ConnectTimeout);
        Assert.Equal(TimeSpan.FromSeconds(2), options.OperationTimeout);
        Assert.Equal(1024, options.SlotCount);
        Assert.Equal(100, options.MaxKeyBytes);

        // The delegate runs after binding, so code overrides configuration.
        Assert.Equal(4096, options.MaxValueBytes);

        // The bound options are the ones the client uses.
        var client = provider.GetRequiredService<ICubbyClient>();
        Assert.Equal(1, await silo.ShardCalls.CallsDuringAsync(async () => await client.PutAsync("configured", new byte[] { 1 })));
        var tooLong = await Assert.ThrowsAsync<ArgumentException>(async () => await client.GetAsync(new string('k', 101)));
        Assert.Contains("100", tooLong.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ConnectionStrings_cubby_lists_the_gateways_and_an_item_that_is_not_host_and_port_is_refused_naming_it()
    {
        await using var silo = await TestSilo.StartAsync();
        var builder = CreateHostBuilder(new Dictionary<string, string?> { ["ConnectionStrings:cubby"] = $" 127.0.0.1:{silo.GatewayEndPoint.Port} , 127.0.0.1:{silo.GatewayEndPoint.Port}" });
        builder.Services.AddCubbyClient();
        await using (var app = builder.Build())
        {
            await app.StartAsync().WaitAsync(TestDeadlines.Phase);
            Assert.Equal(new[] { $"127.0.0.1:{silo.GatewayEndPoint.Port}" }, app.Services.GetRequiredService<IOptions<CubbyClientOptions>>().Value.Endpoints);
            await app.Services.GetRequiredService<ICubbyClient>().PutAsync("from-connection-string", new byte[] { 1 });
            await app.StopAsync();
        }

        var bad = CreateHostBuilder(new Dictionary<string, string?> { ["ConnectionStrings:cubby"] = "127.0.0.1:30000,password=secret" });
        bad.Services.AddCubbyClient();
        await using var badApp = bad.Build();
        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => badApp.StartAsync().WaitAsync(TestDeadlines.Phase));
        Assert.Contains("ConnectionStrings:cubby", error.Message, StringComparison.Ordinal);
        Assert.Contains("'password=secret'", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_host_whose_gateways_do_not_answer_fails_to_start_within_the_connect_timeout_naming_them()
    {
        var port = SiloProcess.FreePort();
        var builder = CreateHostBuilder();
        builder.Services.AddCubbyClient(o =>
        {
            o.Endpoints.Add($"127.0.0.1:{port}");
            o.ConnectTimeout = TimeSpan.FromSeconds(1);
        });
        await using var app = builder.Build();

        var error = await Assert.ThrowsAsync<CubbyConnectionException>(() => app.StartAsync().WaitAsync(TestDeadlines.Phase));
        Assert.Contains($"127.0.0.1:{port} (Cubby:Client:Endpoints)", error.Message, StringComparison.Ordinal);
        Assert.Contains("Cubby:Client:ConnectTimeout", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Inside_a_silo_AddCubbyClient_needs_no_gateway_and_calls_the_silos_own_grains()
    {
        await using var silo = await TestSilo.StartAsync(services: services => services.AddCubbyClient().AddCubbyDistributedCache());

        Assert.Null(silo.Services.GetService<Cubby.Client.Gateways.GatewayConnection>());
        Assert.Empty(silo.Services.GetRequiredService<IOptions<CubbyClientOptions>>().Value.Endpoints);
        var client = silo.Services.GetRequiredService<ICubbyClient>();
        Assert.Equal(1, await silo.ShardCalls.CallsDuringAsync(async () => await client.PutAsync("co-hosted", "v"u8.ToArray())));
        Assert.Equal("v"u8.ToArray(), await silo.Services.GetRequiredService<IDistributedCache>().GetAsync("co-hosted"));
        await using var monitor = await silo.ConnectAsync();
        RespAssert.Bulk("v", await monitor.CallAsync("GET", "co-hosted"));

        // The caller's buffer is copied: a grain on this silo gets no serialized copy of its own.
        var buffer = "first"u8.ToArray();
        await client.PutAsync("reused-buffer", buffer);
        "later"u8.CopyTo(buffer);
        Assert.Equal("first"u8.ToArray(), await client.GetAsync("reused-buffer"));
    }

    [Fact]
    public async Task A_client_with_another_slot_count_than_the_silos_is_refused_naming_both_settings()
    {
        await using var harness = await ClientHarness.StartAsync(configure: o => o.SlotCount = 7);
        var key = Enumerable.Range(0, 100).Select(i => $"k{i}").First(k => new Cubby.Sharding.ShardMap(7).SlotOf(k) != new Cubby.Sharding.ShardMap().SlotOf(k));

        var error = await Assert.ThrowsAsync<ArgumentException>(async () => await harness.Client.PutAsync(key, new byte[] { 1 }));
        Assert.Contains("Cubby:SlotCount (1024)", error.Message, StringComparison.Ordinal);
        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, key));
    }

    [Fact]
    public async Task The_chained_registration_makes_Cubby_the_distributed_cache_sharing_the_clients_connection()
    {
        await using var silo = await TestSilo.StartAsync();
        var services = new ServiceCollection();
        services.AddDistributedMemoryCache();
        services.AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{silo.GatewayEndPoint.Port}")).AddCubbyDistributedCache();
        await using var provider = services.BuildServiceProvider();

        await AssertCubbyIsTheCacheAsync(silo, provider);
    }

    [Fact]
    public async Task The_separate_registration_after_AddCubbyClient_makes_Cubby_the_distributed_cache()
    {
        await using var silo = await TestSilo.StartAsync();
        var services = new ServiceCollection();
        services.AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{silo.GatewayEndPoint.Port}"));
        services.AddDistributedMemoryCache();
        services.AddCubbyDistributedCache();

        // Registered more than once, or followed by a TryAdd-style registration, it stays the one cache.
        services.AddCubbyDistributedCache();
        services.AddDistributedMemoryCache();
        await using var provider = services.BuildServiceProvider();

        Assert.Single(provider.GetServices<IDistributedCache>());
        await AssertCubbyIsTheCacheAsync(silo, provider);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task A_registered_ICubbySerializer_replaces_the_default_one(bool registeredFirst)
    {
        await using var silo = await TestSilo.StartAsync();
        var services = new ServiceCollection();
        if (registeredFirst)
        {
            services.AddSingleton<ICubbySerializer, MarkedJsonSerializer>();
        }

        services.AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{silo.GatewayEndPoint.Port}"));
        if (!registeredFirst)
        {
            services.AddSingleton<ICubbySerializer, MarkedJsonSerializer>();
        }

        await using var provider = services.BuildServiceProvider();
        var client = provider.GetRequiredService<ICubbyClient>();
        await client.PutObjectAsync("object", new[] { 1, 2, 3 });

        Assert.Equal(new[] { 1, 2, 3 }, await client.GetObjectAsync<int[]>("object"));
        await using var monitor = await silo.ConnectAsync();
        Assert.Equal("marked:[1,2,3]"u8.ToArray(), (await SiloProbe.RawEntryAsync(monitor, "object")).Value);
    }

    [Fact]
    public void AddCubbyDistributedCache_without_AddCubbyClient_says_what_is_missing()
    {
        var services = new ServiceCollection();
        services.AddCubbyDistributedCache();
        using var provider = services.BuildServiceProvider();

        var error = Assert.Throws<InvalidOperationException>(() => provider.GetRequiredService<IDistributedCache>());
        Assert.Contains("AddCubbyClient", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_host_without_endpoints_fails_to_start_naming_Cubby_Client_Endpoints()
    {
        var error = await StartHostAsync(services => services.AddCubbyClient());

        Assert.Contains("Cubby:Client:Endpoints", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_host_with_an_endpoint_that_is_not_host_and_port_fails_to_start_naming_it()
    {
        var error = await StartHostAsync(services => services.AddCubbyClient(o => o.Endpoints.Add("nohostport")));

        Assert.Contains("Cubby:Client:Endpoints", error.Message, StringComparison.Ordinal);
        Assert.Contains("nohostport", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_host_with_gateways_listed_and_a_membership_table_fails_to_start_naming_both()
    {
        var error = await StartHostAsync(services => services.AddCubbyClient(o =>
        {
            o.Endpoints.Add("127.0.0.1:30000");
            o.Clustering.ConnectionString = "Host=127.0.0.1;Database=cubby";
        }));

        Assert.Contains("Cubby:Client:Endpoints and Cubby:Client:Clustering:ConnectionString", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_host_validates_options_from_configuration_too()
    {
        var error = await StartHostAsync(
            services => services.AddCubbyClient(),
            new Dictionary<string, string?>
            {
                ["Cubby:Client:Endpoints:0"] = "127.0.0.1:0",
                ["Cubby:Client:OperationTimeout"] = "00:00:00",
                ["Cubby:Client:SlotCount"] = "0",
                ["Cubby:Client:ClusterId"] = "",
            });

        Assert.Contains("Cubby:Client:Endpoints", error.Message, StringComparison.Ordinal);
        Assert.Contains("'127.0.0.1:0'", error.Message, StringComparison.Ordinal);
        Assert.Contains("Cubby:Client:OperationTimeout", error.Message, StringComparison.Ordinal);
        Assert.Contains("Cubby:Client:SlotCount", error.Message, StringComparison.Ordinal);
        Assert.Contains("Cubby:Client:ClusterId", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_host_with_valid_options_starts_and_its_cache_reaches_the_silo()
    {
        await using var silo = await TestSilo.StartAsync();
        var builder = CreateHostBuilder(new Dictionary<string, string?> { ["Cubby:Client:Endpoints:0"] = $"127.0.0.1:{silo.GatewayEndPoint.Port}" });
        builder.Services.AddCubbyClient().AddCubbyDistributedCache();
        await using var app = builder.Build();

        await app.StartAsync().WaitAsync(TestDeadlines.Phase);
        try
        {
            var cache = app.Services.GetRequiredService<IDistributedCache>();
            await cache.SetAsync("hosted", [4, 2], new DistributedCacheEntryOptions());
            Assert.Equal([4, 2], await app.Services.GetRequiredService<ICubbyClient>().GetAsync("hosted"));
        }
        finally
        {
            await app.StopAsync();
        }
    }

    private static async Task AssertCubbyIsTheCacheAsync(TestSilo silo, IServiceProvider provider)
    {
        var cache = provider.GetRequiredService<IDistributedCache>();
        Assert.IsType<CubbyDistributedCache>(cache);
        Assert.Same(cache, provider.GetRequiredService<IBufferDistributedCache>());
        Assert.Same(provider.GetRequiredService<ICubbyClient>(), provider.GetRequiredService<ICubbyClient>());

        await cache.SetAsync("through-cache", [1, 2], new DistributedCacheEntryOptions());
        var client = provider.GetRequiredService<ICubbyClient>();
        Assert.Equal([1, 2], await client.GetAsync("through-cache"));
        await using var monitor = await silo.ConnectAsync();
        Assert.Equal([1, 2], (await monitor.CallAsync("GET", "through-cache")).Bytes.ToArray());
    }

    private static WebApplicationBuilder CreateHostBuilder(Dictionary<string, string?>? settings = null)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        if (settings is not null)
        {
            builder.Configuration.AddInMemoryCollection(settings);
        }

        return builder;
    }

    private static async Task<OptionsValidationException> StartHostAsync(Action<IServiceCollection> register, Dictionary<string, string?>? settings = null)
    {
        var builder = CreateHostBuilder(settings);
        register(builder.Services);
        await using var app = builder.Build();
        return await Assert.ThrowsAsync<OptionsValidationException>(() => app.StartAsync().WaitAsync(TestDeadlines.Phase));
    }
}
