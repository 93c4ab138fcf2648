using Cubby.Client;
using Cubby.Sharding;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Client;

/// <summary><see cref="ICubbyClient.GetOwnerAsync"/> (CUBBY.OWNER), and the <c>ConnectionStrings:cubby</c> an orchestrator hands the client.</summary>
public sealed class KeyOwnerTests
{
    [Fact]
    public async Task GetOwnerAsync_names_the_keys_slot_and_the_silo_where_its_shard_is_active_whichever_silo_is_asked()
    {
        await using var cluster = await TestCluster.StartAsync(3);
        var ports = cluster.Silos.Select(silo => silo.RespEndPoint.Port).ToHashSet();

        // One client per silo, each asking its own.
        var clients = cluster.Silos.Select(silo => SeedRoutingTests.Create($"127.0.0.1:{silo.RespEndPoint.Port}")).ToArray();
        try
        {
            var shards = new ShardMap();
            for (var i = 0; i < 40; i++)
            {
                var key = $"owned:{i}";
                Assert.Equal(WriteOutcome.Created, await clients[i % clients.Length].PutAsync(key, "v"u8.ToArray()));
                var owners = await Task.WhenAll(clients.Select(client => client.GetOwnerAsync(key).AsTask()));
                foreach (var owner in owners)
                {
                    Assert.Equal(shards.SlotOf(key), owner.Slot);
                    Assert.True(EndpointAddress.TryParse(owner.Silo, out _, out var port), $"'{owner.Silo}' is not host:port");
                    Assert.Contains(port, ports);
                }

                // A shard is active on one silo at a time: every silo names the same one.
                Assert.Single(owners.Select(owner => owner.Silo).Distinct());
            }
        }
        finally
        {
            foreach (var client in clients)
            {
                client.Dispose();
            }
        }
    }

    [Fact]
    public async Task GetOwnerAsync_reads_the_slot_and_silo_of_the_reply_and_reports_a_reply_of_another_shape_or_an_error()
    {
        await using var standIn = StandInSilo.Start();
        standIn.OnCommand = command => Task.FromResult<byte[]>(command switch
        {
            ["CUBBY.OWNER", "known"] => [.. "*2\r\n:517\r\n"u8, .. StandInSilo.BulkString("10.0.0.7:6390")],
            ["CUBBY.OWNER", "odd"] => "*2\r\n$3\r\n517\r\n$13\r\n10.0.0.7:6390\r\n"u8.ToArray(),
            _ => "-ERR unknown command 'CUBBY.OWNER'\r\n"u8.ToArray(),
        });
        using var client = SeedRoutingTests.Create(standIn.Endpoint);

        Assert.Equal(new KeyOwner(517, "10.0.0.7:6390"), await client.GetOwnerAsync("known"));
        await Assert.ThrowsAsync<CubbyConnectionException>(async () => await client.GetOwnerAsync("odd"));
        var error = await Assert.ThrowsAsync<CubbyServerException>(async () => await client.GetOwnerAsync("other"));
        Assert.Contains("unknown command", error.Message, StringComparison.Ordinal);

        // The connection stayed in step, and nothing was sent twice.
        Assert.Equal(517, (await client.GetOwnerAsync("known")).Slot);
        Assert.Equal(["CUBBY.OWNER known", "CUBBY.OWNER odd", "CUBBY.OWNER other", "CUBBY.OWNER known"], standIn.Commands.Where(c => c.StartsWith("CUBBY.", StringComparison.Ordinal)));
    }

    [Fact]
    public async Task GetOwnerAsync_checks_the_key_and_fails_when_no_silo_answers()
    {
        var services = new ServiceCollection();
        services.AddCubbyClient(o =>
        {
            o.Endpoints.Add($"127.0.0.1:{FreePorts.Next()}");
            o.ConnectTimeout = TimeSpan.FromSeconds(1);
        });
        await using var provider = services.BuildServiceProvider();
        var client = provider.GetRequiredService<ICubbyClient>();

        await Assert.ThrowsAsync<ArgumentException>(async () => await client.GetOwnerAsync(""));
        await Assert.ThrowsAsync<CubbyConnectionException>(async () => await client.GetOwnerAsync("key"));
    }

    [Fact]
    public void The_cubby_connection_string_adds_endpoints_and_a_password_to_the_options()
    {
        var options = OptionsFrom(new()
        {
            ["ConnectionStrings:cubby"] = "127.0.0.1:7001, 127.0.0.1:7002 ,password=secret",
            ["Cubby:Client:Endpoints:0"] = "127.0.0.1:7001",
        });

        Assert.Equal(["127.0.0.1:7001", "127.0.0.1:7002"], options.Endpoints);
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
