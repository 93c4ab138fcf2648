using Cubby.Client;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Client;

/// <summary>Both forms of the connection string, the errors that name it and the item, and which source wins.</summary>
public sealed class CubbyConnectionStringTests
{
    [Fact]
    public void The_key_value_form_sets_endpoints_cluster_id_and_service_id_with_keys_in_any_case()
    {
        var options = new CubbyClientOptions();

        CubbyConnectionString.ApplyTo(options, " endpoints = 127.0.0.1:30001, 127.0.0.1:30002 ,cubby-3:30003; CLUSTERID=cubby-dev ;ServiceId= cubby ; ");

        Assert.Equal(new[] { "127.0.0.1:30001", "127.0.0.1:30002", "cubby-3:30003" }, options.Endpoints);
        Assert.Equal("cubby-dev", options.ClusterId);
        Assert.Equal("cubby", options.ServiceId);
    }

    [Fact]
    public void The_key_value_form_as_Aspire_hands_it_and_each_key_is_optional()
    {
        var options = new CubbyClientOptions { ServiceId = "kept" };

        CubbyConnectionString.ApplyTo(options, "Endpoints=127.0.0.1:30001,127.0.0.1:30002,127.0.0.1:30003;ClusterId=cubby-dev");

        Assert.Equal(new[] { "127.0.0.1:30001", "127.0.0.1:30002", "127.0.0.1:30003" }, options.Endpoints);
        Assert.Equal("cubby-dev", options.ClusterId);
        Assert.Equal("kept", options.ServiceId);
    }

    [Fact]
    public void The_endpoint_list_form_still_works_and_endpoints_listed_already_are_not_added_twice()
    {
        var options = new CubbyClientOptions();
        options.Endpoints.Add("127.0.0.1:30001");

        CubbyConnectionString.ApplyTo(options, "127.0.0.1:30001, [::1]:30002,cubby-3:30003");

        Assert.Equal(new[] { "127.0.0.1:30001", "[::1]:30002", "cubby-3:30003" }, options.Endpoints);
        Assert.Equal(CubbyDefaults.ClusterId, options.ClusterId);
        Assert.Equal(CubbyDefaults.ServiceId, options.ServiceId);
    }

    [Fact]
    public void An_unknown_key_is_refused_naming_the_connection_string_and_the_key_but_not_its_value()
    {
        var error = Assert.Throws<InvalidOperationException>(() =>
            CubbyConnectionString.ApplyTo(new CubbyClientOptions(), "Endpoints=127.0.0.1:30001;Password=hunter2", "ConnectionStrings:cache"));

        Assert.Contains("ConnectionStrings:cache", error.Message, StringComparison.Ordinal);
        Assert.Contains("'Password'", error.Message, StringComparison.Ordinal);
        Assert.Contains("Endpoints, ClusterId and ServiceId", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("hunter2", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Endpoints=127.0.0.1:30001,nohostport;ClusterId=c", "'nohostport' in Endpoints")]
    [InlineData("Endpoints=127.0.0.1:0", "'127.0.0.1:0' in Endpoints")]
    [InlineData("Endpoints=127.0.0.1:30001;stray", "'stray', which is not key=value")]
    [InlineData("Endpoints=;ClusterId=c", "Endpoints with no endpoint")]
    [InlineData("Endpoints=127.0.0.1:30001;ClusterId=", "an empty ClusterId")]
    [InlineData("Endpoints=127.0.0.1:30001;ServiceId= ", "an empty ServiceId")]
    [InlineData("127.0.0.1:30001,127.0.0.1:70000", "'127.0.0.1:70000', which is not a silo gateway")]
    [InlineData("127.0.0.1:30000,password=secret", "'password=secret', which is not a silo gateway")]
    public void A_bad_item_is_refused_naming_the_connection_string_and_the_item(string connectionString, string item)
    {
        var error = Assert.Throws<InvalidOperationException>(() => CubbyConnectionString.ApplyTo(new CubbyClientOptions(), connectionString, "ConnectionStrings:cache"));

        Assert.StartsWith("ConnectionStrings:cache has ", error.Message, StringComparison.Ordinal);
        Assert.Contains(item, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Without_a_source_the_error_names_ConnectionStrings_cubby()
    {
        var error = Assert.Throws<InvalidOperationException>(() => CubbyConnectionString.ApplyTo(new CubbyClientOptions(), "Host=db"));

        Assert.Contains("ConnectionStrings:cubby", error.Message, StringComparison.Ordinal);
        Assert.Contains("'Host'", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AddCubbyClient_takes_the_connection_strings_ids_over_the_section_and_the_code_delegate_over_both()
    {
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Cubby:Client:Endpoints:0"] = "127.0.0.1:30001",
            ["Cubby:Client:ClusterId"] = "from-section",
            ["Cubby:Client:ServiceId"] = "from-section",
            ["Cubby:Client:OperationTimeout"] = "00:00:03",
            ["ConnectionStrings:cubby"] = "Endpoints=127.0.0.1:30002;ClusterId=from-connection-string;ServiceId=from-connection-string",
        }).Build();
        var services = new ServiceCollection();
        services.AddSingleton<IConfiguration>(configuration);
        services.AddCubbyClient(o => o.ServiceId = "from-code");
        using var provider = services.BuildServiceProvider();

        var options = provider.GetRequiredService<IOptions<CubbyClientOptions>>().Value;

        Assert.Equal(new[] { "127.0.0.1:30001", "127.0.0.1:30002" }, options.Endpoints);
        Assert.Equal("from-connection-string", options.ClusterId);
        Assert.Equal("from-code", options.ServiceId);
        Assert.Equal(TimeSpan.FromSeconds(3), options.OperationTimeout);
    }

    [Fact]
    public void A_connection_string_without_ids_leaves_the_sections_ids()
    {
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Cubby:Client:ClusterId"] = "from-section",
            ["ConnectionStrings:cubby"] = "Endpoints=127.0.0.1:30002",
        }).Build();
        var services = new ServiceCollection();
        services.AddSingleton<IConfiguration>(configuration);
        services.AddCubbyClient();
        using var provider = services.BuildServiceProvider();

        var options = provider.GetRequiredService<IOptions<CubbyClientOptions>>().Value;

        Assert.Equal(new[] { "127.0.0.1:30002" }, options.Endpoints);
        Assert.Equal("from-section", options.ClusterId);
        Assert.Equal(CubbyDefaults.ServiceId, options.ServiceId);
    }
}
