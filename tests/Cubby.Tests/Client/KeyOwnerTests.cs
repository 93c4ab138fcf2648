using Cubby.Client;
using Cubby.Silo.Cluster.Slots;
using Cubby.Tests.Cluster;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Client;

/// <summary><see cref="ICubbyClient.GetOwnerAsync"/>, and the <c>ConnectionStrings:cubby</c> an orchestrator hands the client.</summary>
public sealed class KeyOwnerTests
{
    [Fact]
    public async Task GetOwnerAsync_names_the_silo_that_holds_the_keys_slot()
    {
        await using var cluster = await DevelopmentCluster.StartAsync(3);
        await using var provider = DevelopmentClusterTests.ClientFor(cluster);
        var client = provider.GetRequiredService<ICubbyClient>();

        var owners = new HashSet<string>();
        for (var i = 0; i < 40; i++)
        {
            var key = $"owned:{i}";
            var owner = await client.GetOwnerAsync(key);
            var silo = Assert.Single(cluster.Silos, s => s.RespEndPoint.Port == owner.Silo.Port);
            var state = DevelopmentCluster.StateOf(silo);
            Assert.Equal(state.SelfId, owner.Silo.Id);
            Assert.Equal(SlotState.Held, state.Slots[owner.Slot]);
            Assert.Equal(state.View!.Version, owner.ViewVersion);
            owners.Add(owner.Silo.Id);
        }

        Assert.Equal(3, owners.Count);
    }

    [Fact]
    public async Task GetOwnerAsync_checks_the_key_and_fails_when_no_silo_answers()
    {
        var services = new ServiceCollection();
        services.AddCubbyClient(o =>
        {
            o.Endpoints.Add($"127.0.0.1:{SiloProcess.FreePort()}");
            o.ConnectTimeout = TimeSpan.FromSeconds(1);
        });
        await using var provider = services.BuildServiceProvider();
        var client = provider.GetRequiredService<ICubbyClient>();

        await Assert.ThrowsAsync<ArgumentException>(async () => await client.GetOwnerAsync(""));
        await Assert.ThrowsAsync<CubbyConnectionException>(async () => await client.GetOwnerAsync("key"));
    }

    [Fact]
    public async Task The_cubby_connection_string_adds_endpoints_and_a_password_to_the_options()
    {
        await using var silo = await TestSilo.StartAsync();
        var endpoint = $"127.0.0.1:{silo.RespEndPoint.Port}";
        var options = OptionsFrom(new()
        {
            ["ConnectionStrings:cubby"] = $"{endpoint}, 127.0.0.1:7002 ,password=secret",
            ["Cubby:Client:Endpoints:0"] = endpoint,
        });

        Assert.Equal([endpoint, "127.0.0.1:7002"], options.Endpoints);
        Assert.Equal("secret", options.Password);
    }

    [Fact]
    public void A_setting_wins_over_the_connection_strings_password_and_a_bad_item_is_refused_naming_the_setting()
    {
        Assert.Equal("mine", OptionsFrom(new() { ["ConnectionStrings:cubby"] = "h:1,password=theirs", ["Cubby:Client:Password"] = "mine" }).Password);

        var error = Assert.Throws<InvalidOperationException>(() => OptionsFrom(new() { ["ConnectionStrings:cubby"] = "h:1,h2" }));
        Assert.Contains("ConnectionStrings:cubby", error.Message, StringComparison.Ordinal);
        Assert.Contains("'h2'", error.Message, StringComparison.Ordinal);
    }

    private static CubbyClientOptions OptionsFrom(Dictionary<string, string?> settings)
    {
        var services = new ServiceCollection();
        services.AddSingleton<IConfiguration>(new ConfigurationBuilder().AddInMemoryCollection(settings).Build());
        services.AddCubbyClient();
        using var provider = services.BuildServiceProvider();
        return provider.GetRequiredService<IOptions<CubbyClientOptions>>().Value;
    }
}
