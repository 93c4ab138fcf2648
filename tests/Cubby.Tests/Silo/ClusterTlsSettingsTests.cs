using Cubby.Client;
using Cubby.Client.Gateways;
using Cubby.Silo.Clustering;
using Cubby.Silo.Hosting;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>
/// <c>Cubby:Clustering:Tls</c> and <c>Cubby:Client:Tls</c>: certificates a silo or client could not use stop it at start,
/// with a message naming the setting and the reason.
/// </summary>
public sealed class ClusterTlsSettingsTests : IDisposable
{
    private readonly TestAuthority _authority = new();
    private readonly TestAuthority _stranger = new("Another authority");

    public static TheoryData<string, string> BadSiloCertificates() => new()
    {
        { "missing file", "Cubby:Clustering:Tls:CertificatePath: cannot load the certificate" },
        { "missing authority", "Cubby:Clustering:Tls:AuthorityPath: cannot read" },
        { "authority is not a certificate", "Cubby:Clustering:Tls:AuthorityPath: cannot read" },
        { "issued by another authority", "Cubby:Clustering:Tls:CertificatePath: the certificate does not chain to Cubby:Clustering:Tls:AuthorityPath" },
        { "expired", "Cubby:Clustering:Tls:CertificatePath: the certificate is valid from" },
        { "server authentication only", "Cubby:Clustering:Tls:CertificatePath: the certificate's extended key usage lacks client authentication" },
        { "client authentication only", "Cubby:Clustering:Tls:CertificatePath: the certificate's extended key usage lacks server authentication" },
    };

    [Fact]
    public void A_certificate_from_the_cluster_authority_and_a_shared_self_signed_one_are_accepted()
    {
        var issued = _authority.Issue("silo");
        var shared = _authority.SelfSigned("shared");

        Assert.True(Validate(Silo(issued, _authority.CertificatePath)).Succeeded);
        Assert.True(Validate(Silo(shared, authorityPath: null)).Succeeded);
    }

    [Theory]
    [MemberData(nameof(BadSiloCertificates))]
    public void A_certificate_the_silo_cannot_use_fails_naming_the_setting(string problem, string message)
    {
        var garbage = Path.Combine(Path.GetDirectoryName(_authority.CertificatePath)!, "garbage.crt");
        File.WriteAllText(garbage, "not a certificate");
        var options = problem switch
        {
            "missing file" => Silo(new IssuedCertificate(garbage + ".absent", garbage), _authority.CertificatePath),
            "missing authority" => Silo(_authority.Issue("silo"), garbage + ".absent"),
            "authority is not a certificate" => Silo(_authority.Issue("silo"), garbage),
            "issued by another authority" => Silo(_stranger.Issue("silo"), _authority.CertificatePath),
            "expired" => Silo(_authority.Issue("silo", notAfter: DateTimeOffset.UtcNow.AddHours(-1)), _authority.CertificatePath),
            "server authentication only" => Silo(_authority.Issue("silo", [TestAuthority.ServerAuthentication]), _authority.CertificatePath),
            _ => Silo(_authority.Issue("silo", [TestAuthority.ClientAuthentication]), _authority.CertificatePath),
        };

        var result = Validate(options);

        Assert.True(result.Failed);
        Assert.StartsWith(message, Assert.Single(result.Failures!), StringComparison.Ordinal);
    }

    [Fact]
    public void Cluster_tls_settings_without_a_certificate_are_refused()
    {
        var options = new SiloOptions();
        options.Clustering.Tls.RequireClientCertificate = true;

        var result = Validate(options);

        Assert.True(result.Failed);
        Assert.Contains("need Cubby:Clustering:Tls:CertificatePath", result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void A_client_certificate_the_silos_would_refuse_fails_naming_the_setting()
    {
        var client = new CubbyClientTlsOptions { AuthorityPath = _authority.CertificatePath };
        Assert.Null(GatewayTls.Problem(client));

        var stranger = _stranger.Issue("client");
        (client.CertificatePath, client.KeyPath) = (stranger.CertificatePath, stranger.KeyPath);
        Assert.StartsWith("Cubby:Client:Tls:CertificatePath: the certificate does not chain to Cubby:Client:Tls:AuthorityPath", GatewayTls.Problem(client), StringComparison.Ordinal);

        var serverOnly = _authority.Issue("client", [TestAuthority.ServerAuthentication]);
        (client.CertificatePath, client.KeyPath) = (serverOnly.CertificatePath, serverOnly.KeyPath);
        Assert.StartsWith("Cubby:Client:Tls:CertificatePath: the certificate's extended key usage lacks client authentication", GatewayTls.Problem(client), StringComparison.Ordinal);

        client = new CubbyClientTlsOptions { AuthorityPath = _authority.CertificatePath + ".absent" };
        Assert.StartsWith("Cubby:Client:Tls:AuthorityPath: cannot read", GatewayTls.Problem(client), StringComparison.Ordinal);
    }

    public void Dispose()
    {
        _authority.Dispose();
        _stranger.Dispose();
    }

    private static SiloOptions Silo(IssuedCertificate certificate, string? authorityPath)
    {
        var options = new SiloOptions();
        (options.Clustering.Tls.CertificatePath, options.Clustering.Tls.KeyPath, options.Clustering.Tls.AuthorityPath) = (certificate.CertificatePath, certificate.KeyPath, authorityPath);
        return options;
    }

    private static Microsoft.Extensions.Options.ValidateOptionsResult Validate(SiloOptions options) =>
        new SiloOptionsValidator(TimeProvider.System).Validate(null, options);
}
