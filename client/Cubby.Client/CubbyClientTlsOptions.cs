using Cubby.Tls;

namespace Cubby.Client;

/// <summary>
/// TLS to the silos' gateways (<c>Cubby:Client:Tls</c>), for a cluster whose silos set <c>Cubby:Clustering:Tls</c>. On
/// when <see cref="AuthorityPath"/> or <see cref="CertificateFileOptions.CertificatePath"/> is set. The certificate is
/// what the client presents; silos that require client certificates refuse a client without one that chains to their
/// authority.
/// </summary>
public sealed class CubbyClientTlsOptions : CertificateFileOptions
{
    /// <summary>
    /// The cluster's authority: a PEM (or DER) file of the certificates the silos' certificates chain to (the silos'
    /// <c>Cubby:Clustering:Tls:AuthorityPath</c>, or the certificate they all share). Unset, the client trusts exactly its
    /// own certificate.
    /// </summary>
    public string? AuthorityPath { get; set; }

    /// <summary>Whether TLS is configured.</summary>
    public bool Enabled => AuthorityPath is not null || CertificatePath is not null;
}
