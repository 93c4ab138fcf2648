using Cubby.Tls;

namespace Cubby.Silo.Hosting;

/// <summary>
/// TLS for RESP connections (<c>Cubby:Tls</c>): on when <see cref="CertificateFileOptions.CertificatePath"/> is set. By
/// default the RESP port then speaks TLS only; with <see cref="Port"/> TLS is served there and the RESP port stays plain
/// beside it.
/// </summary>
public sealed class TlsOptions : CertificateFileOptions
{
    /// <summary>The configuration section these options bind from.</summary>
    public const string SectionName = "Cubby:Tls";

    /// <summary>A second RESP port that speaks TLS, beside the plain <c>Cubby:RespPort</c>; 0 picks a free port.</summary>
    public int? Port { get; set; }

    /// <summary>Whether TLS is configured.</summary>
    public bool Enabled => CertificatePath is not null;
}
