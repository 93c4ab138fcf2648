using System.Net;
using Cubby.Grains.Hosting;
using Cubby.Silo.Clustering;
using Cubby.Tls;
using Microsoft.Extensions.Options;

namespace Cubby.Silo.Hosting;

/// <summary>Checks <see cref="SiloOptions"/> at start, naming the setting that is wrong.</summary>
internal sealed class SiloOptionsValidator(TimeProvider time) : IValidateOptions<SiloOptions>
{
    public ValidateOptionsResult Validate(string? name, SiloOptions options)
    {
        var failures = new List<string>();
        void Require(bool condition, string message)
        {
            if (!condition)
            {
                failures.Add(message);
            }
        }

        failures.AddRange(options.Problems());
        Require(options.Host is "localhost" or "*" || IPAddress.TryParse(options.Host, out _), $"Cubby:Host must be 'localhost', '*' or an IP address (was '{options.Host}').");
        Require(options.RespPort is >= 0 and <= 65535, $"Cubby:RespPort must be between 0 and 65535 (was {options.RespPort}).");
        Require(options.HttpPort is >= 0 and <= 65535, $"Cubby:HttpPort must be between 0 and 65535 (was {options.HttpPort}).");
        Require(options.RespPort == 0 || options.RespPort != options.HttpPort, $"Cubby:RespPort and Cubby:HttpPort must differ (both {options.RespPort}).");
        Require(options.MaxArguments >= 3, $"Cubby:MaxArguments must be at least 3 (was {options.MaxArguments}).");
        Require(options.MaxRequestBytes >= (long)options.MaxValueBytes + options.MaxKeyBytes + 1024, $"Cubby:MaxRequestBytes must leave room for one key and one value: at least Cubby:MaxValueBytes + Cubby:MaxKeyBytes + 1024 (was {options.MaxRequestBytes}).");
        Require(options.PubSubBufferLimitBytes >= options.MaxValueBytes, $"Cubby:PubSubBufferLimitBytes must hold at least one message of Cubby:MaxValueBytes ({options.MaxValueBytes}) (was {options.PubSubBufferLimitBytes}).");
        Require(options.MaxRequestBytes <= Array.MaxLength, $"Cubby:MaxRequestBytes must be at most {Array.MaxLength} (was {options.MaxRequestBytes}).");
        Require(options.Password is null || options.Password.Length > 0, "Cubby:Password must not be empty; remove it to disable AUTH.");
        Require(options.SocketThreads is >= 0 and <= 1024, $"Cubby:SocketThreads must be between 0 (one fewer than the processor count) and 1024 (was {options.SocketThreads}).");
        Require(options.ShutdownTimeout > TimeSpan.Zero, $"Cubby:ShutdownTimeout must be positive (was {options.ShutdownTimeout}).");

        ValidateTls(options, Require);
        ValidateClustering(options, Require);
        Require(options.Dashboard.Password is null || !string.IsNullOrWhiteSpace(options.Dashboard.Password), "Cubby:Dashboard:Password must not be empty or blank; remove it to serve the dashboard without a password.");
        Require(options.Dashboard.AuthorizationPolicy is null || !string.IsNullOrWhiteSpace(options.Dashboard.AuthorizationPolicy), "Cubby:Dashboard:AuthorizationPolicy must not be empty or blank; remove it to serve the dashboard without one.");
        Require(options.Dashboard.Password is null || options.Dashboard.AuthorizationPolicy is null, "Cubby:Dashboard:Password and Cubby:Dashboard:AuthorizationPolicy are both set; set one: the password, or the host's own authorization policy.");
        Require(!options.Dashboard.ProtectMetrics || options.Dashboard.Password is not null || options.Dashboard.AuthorizationPolicy is not null, "Cubby:Dashboard:ProtectMetrics needs Cubby:Dashboard:Password or Cubby:Dashboard:AuthorizationPolicy: /metrics is protected like the dashboard.");

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    private static void ValidateTls(SiloOptions options, Action<bool, string> require)
    {
        var tls = options.Tls;
        require(tls.Enabled || (tls.KeyPath is null && tls.Password is null && tls.Port is null), "Cubby:Tls:KeyPath, Cubby:Tls:Password and Cubby:Tls:Port need Cubby:Tls:CertificatePath, the certificate that turns TLS on.");
        require(tls.Port is null or (>= 0 and <= 65535), $"Cubby:Tls:Port must be between 0 and 65535 (was {tls.Port}).");
        require(tls.Port is null or 0 || (tls.Port != options.RespPort && tls.Port != options.HttpPort), $"Cubby:Tls:Port must differ from Cubby:RespPort and Cubby:HttpPort (was {tls.Port}).");
        if (tls.Enabled)
        {
            try
            {
                using var certificate = CertificateFiles.LoadWithKey(tls, TlsOptions.SectionName);
            }
            catch (InvalidOperationException exception)
            {
                require(false, exception.Message);
            }
        }
    }

    private void ValidateClusterTls(ClusterTlsOptions tls, Action<bool, string> require)
    {
        require(tls.Enabled || (tls.KeyPath is null && tls.Password is null && tls.AuthorityPath is null && !tls.RequireClientCertificate),
            "Cubby:Clustering:Tls:KeyPath, Password, AuthorityPath and RequireClientCertificate need Cubby:Clustering:Tls:CertificatePath, the silo's certificate that turns TLS on.");
        if (tls.Enabled && OrleansLinkTls.Problem(tls, time) is { } problem)
        {
            require(false, problem);
        }
    }

    private void ValidateClustering(SiloOptions options, Action<bool, string> require)
    {
        var clustering = options.Clustering;
        require(!string.IsNullOrWhiteSpace(options.ClusterId) && options.ClusterId.Length <= 128, $"Cubby:ClusterId must be 1 to 128 characters (was '{options.ClusterId}').");
        require(!string.IsNullOrWhiteSpace(clustering.ServiceId) && clustering.ServiceId.Length <= 128, $"Cubby:Clustering:ServiceId must be 1 to 128 characters (was '{clustering.ServiceId}').");
        require(Enum.IsDefined(clustering.Mode), $"Cubby:Clustering:Mode must be Localhost, Development or Postgres (was {clustering.Mode}).");
        require(clustering.Mode != ClusteringMode.Postgres || !string.IsNullOrWhiteSpace(clustering.ConnectionString), "Cubby:Clustering:ConnectionString is required when Cubby:Clustering:Mode is Postgres.");
        require(clustering.PrimaryEndpoint is null || OrleansClustering.IsEndpoint(clustering.PrimaryEndpoint), $"Cubby:Clustering:PrimaryEndpoint must be host:port, the primary silo's Cubby:Clustering:SiloPort (was '{clustering.PrimaryEndpoint}').");
        // Without this a silo given a primary to join, but not the mode that joins one, started alone and said nothing.
        require(clustering.PrimaryEndpoint is null || clustering.Mode == ClusteringMode.Development, $"Cubby:Clustering:PrimaryEndpoint is used only when Cubby:Clustering:Mode is Development (it is {clustering.Mode}): set the mode, or remove the endpoint.");
        require(clustering.SiloPort is >= 0 and <= 65535, $"Cubby:Clustering:SiloPort must be between 0 and 65535 (was {clustering.SiloPort}).");
        require(clustering.GatewayPort is >= 0 and <= 65535, $"Cubby:Clustering:GatewayPort must be between 0 and 65535 (was {clustering.GatewayPort}).");
        require(clustering.SiloPort == 0 || clustering.SiloPort != clustering.GatewayPort, $"Cubby:Clustering:SiloPort and Cubby:Clustering:GatewayPort must differ (both {clustering.SiloPort}).");
        var ports = new[] { options.RespPort, options.HttpPort };
        require(clustering.SiloPort == 0 || !ports.Contains(clustering.SiloPort), $"Cubby:Clustering:SiloPort must differ from Cubby:RespPort and Cubby:HttpPort (was {clustering.SiloPort}).");
        require(clustering.GatewayPort == 0 || !ports.Contains(clustering.GatewayPort), $"Cubby:Clustering:GatewayPort must differ from Cubby:RespPort and Cubby:HttpPort (was {clustering.GatewayPort}).");
        require(clustering.ProbeTimeout > TimeSpan.Zero, $"Cubby:Clustering:ProbeTimeout must be positive (was {clustering.ProbeTimeout}).");
        require(clustering.MissedProbesLimit >= 1, $"Cubby:Clustering:MissedProbesLimit must be at least 1 (was {clustering.MissedProbesLimit}).");
        require(clustering.VotesForDeath >= 1, $"Cubby:Clustering:VotesForDeath must be at least 1 (was {clustering.VotesForDeath}).");
        require(clustering.TableRefreshInterval > TimeSpan.Zero, $"Cubby:Clustering:TableRefreshInterval must be positive (was {clustering.TableRefreshInterval}).");
        require(clustering.CallTimeout > TimeSpan.Zero, $"Cubby:Clustering:CallTimeout must be positive (was {clustering.CallTimeout}).");
        ValidateClusterTls(clustering.Tls, require);
    }
}
