using Cubby.Silo.Clustering;
using Cubby.Silo.Hosting;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Silo;

/// <summary>
/// The <c>Orleans:*</c> settings Aspire's Orleans integration gives a silo stand in for the <c>Cubby:*</c> ones that are
/// not set; ones Cubby cannot run with fail the start with a message naming the setting.
/// </summary>
public sealed class OrleansSettingsTests
{
    private const string Npgsql = "Host=db;Port=5432;Username=u;Password=p;Database=orleans";

    /// <summary>What <c>silo.WithReference(orleans)</c> gives with PostgreSQL clustering (the AppHost's <c>WithOrleansProviderType("AdoNet")</c>).</summary>
    private static Dictionary<string, string?> Aspire() => new()
    {
        ["Orleans:ClusterId"] = "aspire-cluster",
        ["Orleans:ServiceId"] = "aspire-service",
        ["Orleans:Clustering:ProviderType"] = "AdoNet",
        ["Orleans:Clustering:ServiceKey"] = "postgres",
        ["ConnectionStrings:postgres"] = Npgsql,
        ["Orleans:EnableDistributedTracing"] = "true",
        ["Orleans:Endpoints:SiloPort"] = "21111",
        ["Orleans:Endpoints:GatewayPort"] = "23000",
    };

    [Fact]
    public void Aspires_settings_stand_in_for_unset_Cubby_ones()
    {
        var options = Bind(Aspire());

        Assert.Equal("aspire-cluster", options.ClusterId);
        Assert.Equal("aspire-service", options.Clustering.ServiceId);
        Assert.Equal(ClusteringMode.Postgres, options.Clustering.Mode);
        Assert.Equal(Npgsql, options.Clustering.ConnectionString);
        Assert.Equal(21111, options.Clustering.SiloPort);
        Assert.Equal(23000, options.Clustering.GatewayPort);
        Assert.Null(options.AdvertisedHost);
    }

    [Fact]
    public void The_host_services_options_say_the_same()
    {
        var configuration = Configuration(Aspire());
        var services = new ServiceCollection();
        var early = CubbyOptions.Register(services, configuration, configure: null);

        using var provider = services.BuildServiceProvider();
        var bound = provider.GetRequiredService<IOptions<SiloOptions>>().Value;

        Assert.Equal(Describe(early), Describe(bound));
        Assert.Equal("aspire-cluster", bound.ClusterId);
    }

    [Fact]
    public void Cubby_settings_that_are_set_win()
    {
        var settings = Aspire();
        settings["Orleans:Endpoints:AdvertisedIPAddress"] = "10.0.0.9";
        settings["Cubby:ClusterId"] = "cubby-cluster";
        settings["Cubby:AdvertisedHost"] = "10.0.0.1";
        settings["Cubby:Clustering:ServiceId"] = "cubby-service";
        settings["Cubby:Clustering:ConnectionString"] = "Host=cubby;Database=cubby";
        settings["Cubby:Clustering:SiloPort"] = "11112";
        settings["Cubby:Clustering:GatewayPort"] = "30002";

        var options = Bind(settings);

        Assert.Equal("cubby-cluster", options.ClusterId);
        Assert.Equal("10.0.0.1", options.AdvertisedHost);
        Assert.Equal("cubby-service", options.Clustering.ServiceId);
        Assert.Equal(ClusteringMode.Postgres, options.Clustering.Mode);
        Assert.Equal("Host=cubby;Database=cubby", options.Clustering.ConnectionString);
        Assert.Equal(11112, options.Clustering.SiloPort);
        Assert.Equal(30002, options.Clustering.GatewayPort);
    }

    [Fact]
    public void Cubby_clustering_mode_Postgres_wins_over_Orleans_development_clustering()
    {
        var options = Bind(new()
        {
            ["Orleans:Clustering:ProviderType"] = "Development",
            ["Cubby:Clustering:Mode"] = "Postgres",
            ["Cubby:Clustering:ConnectionString"] = Npgsql,
        });

        Assert.Equal(ClusteringMode.Postgres, options.Clustering.Mode);
        Assert.Equal(Npgsql, options.Clustering.ConnectionString);
    }

    [Fact]
    public void Without_Orleans_settings_the_defaults_stay()
    {
        var options = Bind(new() { ["Orleans:EnableDistributedTracing"] = "true" });

        Assert.Equal(Describe(new SiloOptions()), Describe(options));
    }

    [Fact]
    public void The_advertised_address_is_taken()
    {
        var options = Bind(new() { ["Orleans:Endpoints:AdvertisedIPAddress"] = "10.0.0.9" });

        Assert.Equal("10.0.0.9", options.AdvertisedHost);
        Assert.Equal(ClusteringMode.Localhost, options.Clustering.Mode);
    }

    [Fact]
    public void AdoNet_takes_the_connection_string_itself_first()
    {
        var options = Bind(new()
        {
            ["Orleans:Clustering:ProviderType"] = "AdoNet",
            ["Orleans:Clustering:ConnectionString"] = "Host=direct",
            ["Orleans:Clustering:ConnectionName"] = "named",
            ["Orleans:Clustering:ServiceKey"] = "keyed",
            ["ConnectionStrings:named"] = "Host=named",
            ["ConnectionStrings:keyed"] = "Host=keyed",
        });

        Assert.Equal(ClusteringMode.Postgres, options.Clustering.Mode);
        Assert.Equal("Host=direct", options.Clustering.ConnectionString);
    }

    [Fact]
    public void AdoNet_takes_the_connection_name_before_the_service_key()
    {
        var options = Bind(new()
        {
            ["Orleans:Clustering:ProviderType"] = "AdoNet",
            ["Orleans:Clustering:ConnectionName"] = "named",
            ["Orleans:Clustering:ServiceKey"] = "keyed",
            ["ConnectionStrings:named"] = "Host=named",
            ["ConnectionStrings:keyed"] = "Host=keyed",
        });

        Assert.Equal("Host=named", options.Clustering.ConnectionString);
    }

    [Fact]
    public void AdoNet_falls_back_to_the_service_key_when_the_connection_name_has_no_entry()
    {
        var options = Bind(new()
        {
            ["Orleans:Clustering:ProviderType"] = "AdoNet",
            ["Orleans:Clustering:ConnectionName"] = "absent",
            ["Orleans:Clustering:ServiceKey"] = "keyed",
            ["ConnectionStrings:keyed"] = "Host=keyed",
        });

        Assert.Equal("Host=keyed", options.Clustering.ConnectionString);
    }

    [Fact]
    public void AdoNet_with_the_Npgsql_invariant_is_accepted()
    {
        var settings = Aspire();
        settings["Orleans:Clustering:Invariant"] = "Npgsql";

        Assert.Equal(ClusteringMode.Postgres, Bind(settings).Clustering.Mode);
    }

    [Fact]
    public void AdoNet_without_a_connection_string_of_its_own_takes_Cubbys()
    {
        var options = Bind(new()
        {
            ["Orleans:Clustering:ProviderType"] = "AdoNet",
            ["Cubby:Clustering:ConnectionString"] = Npgsql,
        });

        Assert.Equal(ClusteringMode.Postgres, options.Clustering.Mode);
        Assert.Equal(Npgsql, options.Clustering.ConnectionString);
    }

    [Fact]
    public void Development_with_a_primary_joins_it()
    {
        var options = Bind(new()
        {
            ["Orleans:Clustering:ProviderType"] = "Development",
            ["Orleans:Clustering:PrimarySiloEndpoint"] = "127.0.0.1:11111",
        });

        Assert.Equal(ClusteringMode.Development, options.Clustering.Mode);
        Assert.Equal("127.0.0.1:11111", options.Clustering.PrimaryEndpoint);
    }

    [Fact]
    public void Development_without_a_primary_is_the_primary()
    {
        var options = Bind(new() { ["Orleans:Clustering:ProviderType"] = "Development" });

        Assert.Equal(ClusteringMode.Development, options.Clustering.Mode);
        Assert.Null(options.Clustering.PrimaryEndpoint);
    }

    [Fact]
    public void Cubbys_primary_wins_over_Orleans()
    {
        var options = Bind(new()
        {
            ["Orleans:Clustering:ProviderType"] = "Development",
            ["Orleans:Clustering:PrimarySiloEndpoint"] = "127.0.0.1:11111",
            ["Cubby:Clustering:PrimaryEndpoint"] = "127.0.0.1:11112",
        });

        Assert.Equal("127.0.0.1:11112", options.Clustering.PrimaryEndpoint);
    }

    public static TheoryData<string, Dictionary<string, string?>, string> BadSettings() => new()
    {
        {
            "another provider",
            new() { ["Orleans:Clustering:ProviderType"] = "Redis", ["Orleans:Clustering:ServiceKey"] = "redis" },
            "Orleans:Clustering:ProviderType must be AdoNet (PostgreSQL) or Development, the clusterings a Cubby silo runs on (was 'Redis')."
        },
        {
            "another provider beside Cubby's own mode",
            new() { ["Orleans:Clustering:ProviderType"] = "Consul", ["Cubby:Clustering:Mode"] = "Development" },
            "Orleans:Clustering:ProviderType must be AdoNet (PostgreSQL) or Development, the clusterings a Cubby silo runs on (was 'Consul')."
        },
        {
            "a provider name in the wrong case, which Orleans does not find either",
            new() { ["Orleans:Clustering:ProviderType"] = "adonet", ["Orleans:Clustering:ConnectionString"] = Npgsql },
            "Orleans:Clustering:ProviderType must be AdoNet (PostgreSQL) or Development, the clusterings a Cubby silo runs on (was 'adonet')."
        },
        {
            "a service key with no connection string",
            new() { ["Orleans:Clustering:ProviderType"] = "AdoNet", ["Orleans:Clustering:ServiceKey"] = "postgres" },
            "ConnectionStrings:postgres must be set: Orleans:Clustering:ServiceKey names it as the database of the AdoNet clustering (Orleans:Clustering:ProviderType)."
        },
        {
            "a connection name with no connection string",
            new() { ["Orleans:Clustering:ProviderType"] = "AdoNet", ["Orleans:Clustering:ConnectionName"] = "members", ["Orleans:Clustering:ServiceKey"] = "postgres" },
            "ConnectionStrings:members must be set: Orleans:Clustering:ConnectionName names it as the database of the AdoNet clustering (Orleans:Clustering:ProviderType)."
        },
        {
            "AdoNet and nothing else",
            new() { ["Orleans:Clustering:ProviderType"] = "AdoNet" },
            "Orleans:Clustering:ConnectionString is required when Orleans:Clustering:ProviderType is AdoNet (or Orleans:Clustering:ConnectionName or Orleans:Clustering:ServiceKey naming a ConnectionStrings entry)."
        },
        {
            "another database",
            new() { ["Orleans:Clustering:ProviderType"] = "AdoNet", ["Orleans:Clustering:Invariant"] = "Microsoft.Data.SqlClient", ["Orleans:Clustering:ConnectionString"] = "Server=sql" },
            "Orleans:Clustering:Invariant must be Npgsql: a Cubby silo keeps its membership table in PostgreSQL (was 'Microsoft.Data.SqlClient')."
        },
        {
            "AdoNet beside Cubby's Localhost mode",
            new() { ["Orleans:Clustering:ProviderType"] = "AdoNet", ["Orleans:Clustering:ConnectionString"] = Npgsql, ["Cubby:Clustering:Mode"] = "Localhost" },
            "Orleans:Clustering:ProviderType is AdoNet, which Cubby:Clustering:Mode Localhost contradicts: Orleans sets up its ADO.NET clustering from it as well. Remove one, or set Cubby:Clustering:Mode to Postgres."
        },
        {
            "a silo port that is no port",
            new() { ["Orleans:Endpoints:SiloPort"] = "eleven" },
            "Orleans:Endpoints:SiloPort must be between 0 and 65535 (was 'eleven')."
        },
        {
            "a gateway port out of range",
            new() { ["Orleans:Endpoints:GatewayPort"] = "70000" },
            "Orleans:Endpoints:GatewayPort must be between 0 and 65535 (was '70000')."
        },
    };

    [Theory]
    [MemberData(nameof(BadSettings))]
    public void A_setting_Cubby_cannot_run_with_fails_the_start_naming_it(string what, Dictionary<string, string?> settings, string message)
    {
        var failure = Assert.Throws<OptionsValidationException>(() => Bind(settings));

        Assert.True(failure.Failures.SequenceEqual([message]), $"{what}: {string.Join(" | ", failure.Failures)}");
    }

    [Fact]
    public void Every_bad_setting_is_named_at_once()
    {
        var failure = Assert.Throws<OptionsValidationException>(() => Bind(new()
        {
            ["Orleans:Clustering:ProviderType"] = "Redis",
            ["Orleans:Endpoints:SiloPort"] = "-1",
        }));

        Assert.Equal(2, failure.Failures.Count());
        Assert.Contains(failure.Failures, message => message.StartsWith("Orleans:Endpoints:SiloPort ", StringComparison.Ordinal));
        Assert.Contains(failure.Failures, message => message.StartsWith("Orleans:Clustering:ProviderType ", StringComparison.Ordinal));
    }

    private static SiloOptions Bind(Dictionary<string, string?> settings) =>
        CubbyOptions.Register(new ServiceCollection(), Configuration(settings), configure: null);

    private static IConfiguration Configuration(Dictionary<string, string?> settings) =>
        new ConfigurationBuilder().AddInMemoryCollection(settings).Build();

    private static string Describe(SiloOptions options) =>
        $"{options.ClusterId}|{options.AdvertisedHost}|{options.Clustering.ServiceId}|{options.Clustering.Mode}|{options.Clustering.ConnectionString}|{options.Clustering.PrimaryEndpoint}|{options.Clustering.SiloPort}|{options.Clustering.GatewayPort}";
}
