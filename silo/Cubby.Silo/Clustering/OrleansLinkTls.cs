using Cubby.Tls;
using Orleans.Configuration;

namespace Cubby.Silo.Clustering;

/// <summary>
/// Puts Orleans' TLS middleware (<c>Microsoft.Orleans.Connections.Security</c>) on the silo's links when
/// <c>Cubby:Clustering:Tls</c> is on: silos admit only silos whose certificate chains to the cluster's authority, and
/// the gateway port speaks TLS, demanding a client certificate when <see cref="ClusterTlsOptions.RequireClientCertificate"/>.
/// </summary>
internal static class OrleansLinkTls
{
    public static void Configure(ISiloBuilder silo, ClusterTlsOptions options)
    {
        if (!options.Enabled)
        {
            return;
        }

        // Loaded when Orleans first reads its connection options at start, after the options were validated.
        var credentials = new Lazy<LinkCredentials>(() => LinkCredentials.Load(options, options.AuthorityPath, ClusterTlsOptions.SectionName));
        silo.Configure<SiloConnectionOptions>(connections =>
        {
            connections.ConfigureSiloInboundConnection(link => link.UseServerTls(credentials.Value.ForAccepting(requirePeerCertificate: true)));
            connections.ConfigureSiloOutboundConnection(link => link.UseClientTls(credentials.Value.ForConnecting()));
            connections.ConfigureGatewayInboundConnection(link => link.UseServerTls(credentials.Value.ForAccepting(options.RequireClientCertificate)));
        });
    }

    /// <summary>Why the configured files would not do, naming the setting; null when they would.</summary>
    public static string? Problem(ClusterTlsOptions options, TimeProvider time)
    {
        try
        {
            var credentials = LinkCredentials.Load(options, options.AuthorityPath, ClusterTlsOptions.SectionName);
            return credentials.Problem(ClusterTlsOptions.SectionName, time, serverRole: true, clientRole: true);
        }
        catch (InvalidOperationException exception)
        {
            return exception.Message;
        }
    }
}
