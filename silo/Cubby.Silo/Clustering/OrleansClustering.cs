using System.Net;
using System.Net.Sockets;
using Cubby.Silo.Clustering.Postgres;
using Cubby.Silo.Hosting;
using Orleans.Configuration;
using SiloOptions = Cubby.Silo.Hosting.SiloOptions;

namespace Cubby.Silo.Clustering;

/// <summary>Maps <c>Cubby:ClusterId</c> and <c>Cubby:Clustering</c> onto Orleans' clustering, endpoints and failure detection.</summary>
internal static class OrleansClustering
{
    /// <summary>The ADO.NET invariant of Npgsql, which Orleans' providers load by name.</summary>
    public const string NpgsqlInvariant = "Npgsql";

    public static void Configure(ISiloBuilder silo, SiloOptions options)
    {
        var clustering = options.Clustering;
        var advertised = AdvertisedAddress(options);
        var siloPort = FreePort.Or(clustering.SiloPort, options.Host == "*" ? IPAddress.Any : advertised);
        var gatewayPort = FreePort.Or(clustering.GatewayPort, options.Host == "*" ? IPAddress.Any : advertised);
        silo.ConfigureEndpoints(advertised, siloPort, gatewayPort, listenOnAnyHostAddress: options.Host == "*");
        silo.Configure<ClusterOptions>(cluster => (cluster.ClusterId, cluster.ServiceId) = (options.ClusterId, clustering.ServiceId));
        OrleansLinkTls.Configure(silo, clustering.Tls);

        switch (clustering.Mode)
        {
            case ClusteringMode.Localhost:
                silo.UseDevelopmentClustering(primarySiloEndpoint: null);
                silo.UseInMemoryReminderService();
                break;
            case ClusteringMode.Development:
                silo.UseDevelopmentClustering(clustering.PrimaryEndpoint is { } primary ? ParseEndpoint(primary) : null);
                silo.UseInMemoryReminderService();
                break;
            case ClusteringMode.Postgres:
                var connectionString = clustering.ConnectionString!;
                silo.UseAdoNetClustering(ado => (ado.Invariant, ado.ConnectionString) = (NpgsqlInvariant, connectionString));
                silo.UseAdoNetReminderService(ado => (ado.Invariant, ado.ConnectionString) = (NpgsqlInvariant, connectionString));
                silo.Services.AddSingleton<ILifecycleParticipant<ISiloLifecycle>>(new PostgresSchemaParticipant(connectionString));
                break;
        }

        silo.Configure<ClusterMembershipOptions>(membership =>
        {
            membership.ProbeTimeout = clustering.ProbeTimeout;
            membership.NumMissedProbesLimit = clustering.MissedProbesLimit;
            membership.NumVotesForDeathDeclaration = clustering.VotesForDeath;
            membership.TableRefreshTimeout = clustering.TableRefreshInterval;
            membership.IAmAliveTablePublishTimeout = TimeSpan.FromSeconds(5);
        });

        // The distributed directory holds a dead silo's range for this long, counted from when it probably failed;
        // Orleans' 30 s default kept a killed silo's shards unreachable for 20 s and more after it was declared dead
        // (docs/orleans-cluster.md). A lease as long as detection itself still covers a silo that is declared dead
        // while alive.
        silo.Configure<GrainDirectoryOptions>(directory =>
            directory.RangeLeaseDuration = clustering.ProbeTimeout * (clustering.MissedProbesLimit + 1));
    }

    /// <summary>The address other silos and clients reach this one at.</summary>
    public static IPAddress AdvertisedAddress(SiloOptions options)
    {
        if (options.AdvertisedHost is { } advertised)
        {
            return IPAddress.TryParse(advertised, out var parsed) ? parsed
                : Dns.GetHostAddresses(advertised).First(static a => a.AddressFamily == AddressFamily.InterNetwork);
        }

        return options.Host switch
        {
            "localhost" => IPAddress.Loopback,
            "*" => Dns.GetHostAddresses(Dns.GetHostName()).FirstOrDefault(static a => a.AddressFamily == AddressFamily.InterNetwork && !IPAddress.IsLoopback(a))
                ?? IPAddress.Loopback,
            _ => IPAddress.Parse(options.Host),
        };
    }

    public static IPEndPoint ParseEndpoint(string text)
    {
        var colon = text.LastIndexOf(':');
        var host = text[..colon].Trim('[', ']');
        var port = int.Parse(text[(colon + 1)..], System.Globalization.CultureInfo.InvariantCulture);
        var address = IPAddress.TryParse(host, out var parsed) ? parsed
            : host == "localhost" ? IPAddress.Loopback
            : Dns.GetHostAddresses(host).First(static a => a.AddressFamily == AddressFamily.InterNetwork);
        return new IPEndPoint(address, port);
    }

    public static bool IsEndpoint(string text)
    {
        var colon = text.LastIndexOf(':');
        return colon > 0 && int.TryParse(text.AsSpan(colon + 1), System.Globalization.CultureInfo.InvariantCulture, out var port) && port is > 0 and <= 65535;
    }

    /// <summary>Applies Cubby's PostgreSQL scripts before Orleans first touches the membership table.</summary>
    private sealed class PostgresSchemaParticipant(string connectionString) : ILifecycleParticipant<ISiloLifecycle>
    {
        public void Participate(ISiloLifecycle lifecycle) =>
            lifecycle.Subscribe(nameof(PostgresSchemaParticipant), ServiceLifecycleStage.First, token => PostgresSchema.ApplyAsync(connectionString, token));
    }
}
