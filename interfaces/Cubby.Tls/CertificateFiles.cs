using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace Cubby.Tls;

/// <summary>Loads certificates from files, with errors that name the setting (<c>Cubby:Tls</c>, <c>Cubby:Clustering:Tls</c>, ...) they came from.</summary>
public static class CertificateFiles
{
    /// <summary>The certificate of <paramref name="options"/>, with its private key.</summary>
    /// <param name="options">Where the certificate and its key are.</param>
    /// <param name="section">The options' configuration section, for messages.</param>
    /// <exception cref="InvalidOperationException">It cannot be loaded or has no private key; the message names the setting.</exception>
    public static X509Certificate2 LoadWithKey(CertificateFileOptions options, string section)
    {
        var path = options.CertificatePath ?? throw new InvalidOperationException($"{section}:CertificatePath is not set.");
        X509Certificate2 certificate;
        try
        {
            certificate = options.KeyPath is { } keyPath
                ? LoadPem(path, keyPath, options.Password)
                : X509CertificateLoader.LoadPkcs12FromFile(path, options.Password);
        }
        catch (Exception exception) when (IsUnreadable(exception))
        {
            var key = options.KeyPath is null ? "" : $" with the key {section}:KeyPath '{options.KeyPath}'";
            throw new InvalidOperationException($"{section}:CertificatePath: cannot load the certificate '{path}'{key}: {exception.Message}", exception);
        }

        if (!certificate.HasPrivateKey)
        {
            certificate.Dispose();
            throw new InvalidOperationException($"{section}:CertificatePath: the certificate '{path}' has no private key; give a PKCS#12 file with one, or its PEM key in {section}:KeyPath.");
        }

        return certificate;
    }

    /// <summary>The certificates in a PEM bundle or a single DER file: the authorities a peer's certificate must chain to.</summary>
    /// <param name="path">The file.</param>
    /// <param name="setting">The setting that named it, for messages.</param>
    /// <exception cref="InvalidOperationException">It cannot be read or holds no certificate; the message names the setting.</exception>
    public static X509Certificate2Collection LoadAuthorities(string path, string setting)
    {
        var authorities = new X509Certificate2Collection();
        try
        {
            var text = File.ReadAllText(path);
            if (text.Contains("-----BEGIN CERTIFICATE-----", StringComparison.Ordinal))
            {
                authorities.ImportFromPem(text);
            }
            else
            {
                authorities.Add(X509CertificateLoader.LoadCertificateFromFile(path));
            }
        }
        catch (Exception exception) when (IsUnreadable(exception))
        {
            throw new InvalidOperationException($"{setting}: cannot read '{path}' as PEM or DER certificates: {exception.Message}", exception);
        }

        return authorities.Count > 0 ? authorities
            : throw new InvalidOperationException($"{setting}: '{path}' holds no certificate.");
    }

    private static bool IsUnreadable(Exception exception) =>
        exception is CryptographicException or IOException or UnauthorizedAccessException or ArgumentException;

    private static X509Certificate2 LoadPem(string certificatePath, string keyPath, string? password)
    {
        using var pem = password is null
            ? X509Certificate2.CreateFromPemFile(certificatePath, keyPath)
            : X509Certificate2.CreateFromEncryptedPemFile(certificatePath, password, keyPath);

        // A PEM key is ephemeral; SslStream on some platforms needs it exportable as PKCS#12 to present it.
        return X509CertificateLoader.LoadPkcs12(pem.Export(X509ContentType.Pkcs12), null);
    }
}
