namespace Cubby.Silo.Hosting;

/// <summary>
/// TLS for RESP connections (<c>Cubby:Tls</c>): on when <see cref="CertificatePath"/> is set. By default the RESP port
/// then speaks TLS only; with <see cref="Port"/> TLS is served there and the RESP port stays plain beside it.
/// </summary>
public sealed class TlsOptions
{
    /// <summary>
    /// The server certificate: a PKCS#12 file (<c>.pfx</c>/<c>.p12</c>, with <see cref="Password"/> if it has one), or a
    /// PEM certificate whose private key is in <see cref="KeyPath"/>.
    /// </summary>
    public string? CertificatePath { get; set; }

    /// <summary>The PEM private key of a PEM certificate (encrypted with <see cref="Password"/> if it is).</summary>
    public string? KeyPath { get; set; }

    /// <summary>The password of the PKCS#12 file, or of the encrypted PEM key.</summary>
    public string? Password { get; set; }

    /// <summary>A second RESP port that speaks TLS, beside the plain <c>Cubby:RespPort</c>; 0 picks a free port.</summary>
    public int? Port { get; set; }

    /// <summary>Whether TLS is configured.</summary>
    public bool Enabled => CertificatePath is not null;
}
