using Cubby.Tls;
using Orleans.Configuration;

namespace Cubby.Client.Gateways;

/// <summary>
/// Puts Orleans' TLS middleware (<c>Microsoft.Orleans.Connections.Security</c>) on the client's gateway connections when
/// <c>Cubby:Client:Tls</c> is on: a gateway is accepted only if its certificate chains to the cluster's authority.
/// </summary>
internal static class GatewayTls
{
    public const string SectionName = CubbyClientOptions.SectionName + ":Tls";

    public static void Configure(ClientConnectionOptions connections, CubbyClientTlsOptions options)
    {
        if (!options.Enabled)
        {
            return;
        }

        var credentials = LinkCredentials.Load(options, options.AuthorityPath, SectionName);
        var tls = credentials.ForConnecting();
        connections.ConfigureConnection(link => link.UseClientTls(tls));
    }

    /// <summary>Why the configured files would not do, naming the setting; null when they would.</summary>
    public static string? Problem(CubbyClientTlsOptions options)
    {
        try
        {
            var credentials = LinkCredentials.Load(options, options.AuthorityPath, SectionName);

            // Certificates are judged on real time whatever TimeProvider the app registers, as the silos judge them.
            return credentials.Problem(SectionName, TimeProvider.System, serverRole: false, clientRole: true);
        }
        catch (InvalidOperationException exception)
        {
            return exception.Message;
        }
    }
}
