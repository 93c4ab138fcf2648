using Cubby.Tls;

namespace Cubby.Silo.Clustering;

/// <summary>
/// TLS for Orleans' own links (<c>Cubby:Clustering:Tls</c>): silo to silo, and gateway clients to the gateway port. On
/// when <see cref="CertificateFileOptions.CertificatePath"/> is set; then every silo of the cluster needs it on, and
/// clients need <c>Cubby:Client:Tls</c>.
/// </summary>
public sealed class ClusterTlsOptions : CertificateFileOptions
{
    /// <summary>The configuration section these options bind from.</summary>
    public const string SectionName = "Cubby:Clustering:Tls";

    /// <summary>
    /// The cluster's authority: a PEM (or DER) file of the certificates a peer's certificate must chain to. Unset, the
    /// silo trusts exactly its own certificate, for a cluster whose members all share one. Use a private authority
    /// for the cluster, never a public one: any certificate that chains to it is admitted, whatever name it carries.
    /// </summary>
    public string? AuthorityPath { get; set; }

    /// <summary>
    /// Whether gateway clients must present a certificate that chains to the authority (mutual TLS). Silos always
    /// must, to join.
    /// </summary>
    public bool RequireClientCertificate { get; set; }

    /// <summary>Whether TLS is configured.</summary>
    public bool Enabled => CertificatePath is not null;
}
