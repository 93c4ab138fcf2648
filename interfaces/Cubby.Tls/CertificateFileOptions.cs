namespace Cubby.Tls;

/// <summary>A certificate with its private key, read from files: a PKCS#12 file, or a PEM certificate and its PEM key.</summary>
public class CertificateFileOptions
{
    /// <summary>
    /// The certificate: a PKCS#12 file (<c>.pfx</c>/<c>.p12</c>, with <see cref="Password"/> if it has one), or a PEM
    /// certificate whose private key is in <see cref="KeyPath"/>.
    /// </summary>
    public string? CertificatePath { get; set; }

    /// <summary>The PEM private key of a PEM certificate (encrypted with <see cref="Password"/> if it is).</summary>
    public string? KeyPath { get; set; }

    /// <summary>The password of the PKCS#12 file, or of the encrypted PEM key.</summary>
    public string? Password { get; set; }
}
