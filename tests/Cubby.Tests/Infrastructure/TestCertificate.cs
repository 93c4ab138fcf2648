using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace Cubby.Tests.Infrastructure;

/// <summary>
/// A self-signed server certificate for localhost and 127.0.0.1, written to a temporary folder as a password-protected
/// PKCS#12 file and as a PEM certificate with its PEM key (the two forms <c>Cubby:Tls</c> takes).
/// </summary>
internal sealed class TestCertificate : IDisposable
{
    public const string Password = "cubby-test";

    private readonly string _folder = Directory.CreateTempSubdirectory("cubby-tls-").FullName;

    public TestCertificate()
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest("CN=localhost", key, HashAlgorithmName.SHA256);
        var names = new SubjectAlternativeNameBuilder();
        names.AddDnsName("localhost");
        names.AddIpAddress(IPAddress.Loopback);
        request.CertificateExtensions.Add(names.Build());
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1")], critical: false));
        using var certificate = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddDays(-1), DateTimeOffset.UtcNow.AddDays(30));
        Thumbprint = certificate.Thumbprint;
        File.WriteAllBytes(PfxPath, certificate.Export(X509ContentType.Pkcs12, Password));
        File.WriteAllText(PemPath, certificate.ExportCertificatePem());
        File.WriteAllText(KeyPath, key.ExportPkcs8PrivateKeyPem());
    }

    public string Thumbprint { get; }

    public string PfxPath => Path.Combine(_folder, "cubby.pfx");

    public string PemPath => Path.Combine(_folder, "cubby.crt");

    public string KeyPath => Path.Combine(_folder, "cubby.key");

    public void Dispose() => Directory.Delete(_folder, recursive: true);
}
