using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace Cubby.Tests.Infrastructure;

/// <summary>
/// A private certificate authority in a temporary folder, as an operator makes one for a cluster: its certificate as
/// PEM, and certificates it issues (or self-signed ones) as PEM certificate and PEM key, the files
/// <c>Cubby:Clustering:Tls</c> and <c>Cubby:Client:Tls</c> take.
/// </summary>
internal sealed class TestAuthority : IDisposable
{
    public static readonly Oid ServerAuthentication = new("1.3.6.1.5.5.7.3.1");
    public static readonly Oid ClientAuthentication = new("1.3.6.1.5.5.7.3.2");

    private readonly string _folder = Directory.CreateTempSubdirectory("cubby-ca-").FullName;
    private readonly X509Certificate2 _authority;
    private int _issued;

    public TestAuthority(string name = "Cubby test authority")
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest($"CN={name}", key, HashAlgorithmName.SHA256);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(certificateAuthority: true, hasPathLengthConstraint: false, 0, critical: true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.KeyCertSign | X509KeyUsageFlags.CrlSign, critical: true));
        request.CertificateExtensions.Add(new X509SubjectKeyIdentifierExtension(request.PublicKey, critical: false));
        _authority = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddDays(-2), DateTimeOffset.UtcNow.AddDays(60));
        CertificatePath = Path.Combine(_folder, "authority.crt");
        File.WriteAllText(CertificatePath, _authority.ExportCertificatePem());
    }

    /// <summary>The authority's certificate, PEM: what <c>AuthorityPath</c> names.</summary>
    public string CertificatePath { get; }

    /// <summary>
    /// A certificate for localhost and 127.0.0.1 signed by this authority, for server and client authentication unless
    /// <paramref name="purposes"/> says otherwise, valid until <paramref name="notAfter"/> (30 days from now by default).
    /// </summary>
    public IssuedCertificate Issue(string name, Oid[]? purposes = null, DateTimeOffset? notAfter = null)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = Leaf(name, key, purposes);
        request.CertificateExtensions.Add(X509AuthorityKeyIdentifierExtension.CreateFromCertificate(_authority, includeKeyIdentifier: true, includeIssuerAndSerial: false));
        var serial = BitConverter.GetBytes(Interlocked.Increment(ref _issued) + 1000L);
        var end = notAfter ?? DateTimeOffset.UtcNow.AddDays(30);
        using var certificate = request.Create(_authority, end.AddDays(-1) < DateTimeOffset.UtcNow.AddDays(-1) ? end.AddDays(-1) : DateTimeOffset.UtcNow.AddDays(-1), end, serial);
        return Write(name, certificate.ExportCertificatePem(), key);
    }

    /// <summary>A self-signed certificate for server and client authentication: one a whole cluster can share.</summary>
    public IssuedCertificate SelfSigned(string name)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        using var certificate = Leaf(name, key, null).CreateSelfSigned(DateTimeOffset.UtcNow.AddDays(-1), DateTimeOffset.UtcNow.AddDays(30));
        return Write(name, certificate.ExportCertificatePem(), key);
    }

    public void Dispose()
    {
        _authority.Dispose();
        Directory.Delete(_folder, recursive: true);
    }

    private static CertificateRequest Leaf(string name, ECDsa key, Oid[]? purposes)
    {
        var request = new CertificateRequest($"CN={name}", key, HashAlgorithmName.SHA256);
        var names = new SubjectAlternativeNameBuilder();
        names.AddDnsName("localhost");
        names.AddIpAddress(IPAddress.Loopback);
        request.CertificateExtensions.Add(names.Build());
        var usages = new OidCollection();
        foreach (var purpose in purposes ?? [ServerAuthentication, ClientAuthentication])
        {
            usages.Add(purpose);
        }

        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension(usages, critical: false));
        return request;
    }

    private IssuedCertificate Write(string name, string certificatePem, ECDsa key)
    {
        var files = new IssuedCertificate(Path.Combine(_folder, name + ".crt"), Path.Combine(_folder, name + ".key"));
        File.WriteAllText(files.CertificatePath, certificatePem);
        File.WriteAllText(files.KeyPath, key.ExportPkcs8PrivateKeyPem());
        return files;
    }
}

/// <summary>A PEM certificate and its PEM key.</summary>
internal sealed record IssuedCertificate(string CertificatePath, string KeyPath);
