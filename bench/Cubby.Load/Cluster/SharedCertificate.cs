using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace Cubby.Load.Cluster;

/// <summary>
/// A self-signed certificate for server and client authentication, as PEM certificate and key files in a temporary
/// folder: the one certificate a measured cluster's silos share and its client trusts.
/// </summary>
internal sealed class SharedCertificate : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("cubby-bench-tls-").FullName;

    public SharedCertificate()
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest("CN=cubby-bench", key, HashAlgorithmName.SHA256);
        var names = new SubjectAlternativeNameBuilder();
        names.AddIpAddress(IPAddress.Loopback);
        request.CertificateExtensions.Add(names.Build());
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1"), new Oid("1.3.6.1.5.5.7.3.2")], critical: false));
        using var certificate = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddDays(-1), DateTimeOffset.UtcNow.AddDays(7));
        File.WriteAllText(CertificatePath, certificate.ExportCertificatePem());
        File.WriteAllText(KeyPath, key.ExportPkcs8PrivateKeyPem());
    }

    public string CertificatePath => Path.Combine(_folder, "cluster.crt");

    public string KeyPath => Path.Combine(_folder, "cluster.key");

    public void Dispose() => Directory.Delete(_folder, recursive: true);
}
