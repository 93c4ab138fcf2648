using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace Cubby.Silo.Hosting;

/// <summary>Loads the RESP port's server certificate from <see cref="TlsOptions"/>, with errors that name the setting.</summary>
internal static class TlsCertificate
{
    /// <summary>The certificate, with its private key.</summary>
    /// <exception cref="InvalidOperationException">It cannot be loaded or has no private key; the message names the setting.</exception>
    public static X509Certificate2 Load(TlsOptions options)
    {
        var path = options.CertificatePath ?? throw new InvalidOperationException("Cubby:Tls:CertificatePath is not set.");
        X509Certificate2 certificate;
        try
        {
            certificate = options.KeyPath is { } keyPath
                ? LoadPem(path, keyPath, options.Password)
                : X509CertificateLoader.LoadPkcs12FromFile(path, options.Password);
        }
        catch (Exception exception) when (exception is CryptographicException or IOException or UnauthorizedAccessException or ArgumentException)
        {
            var key = options.KeyPath is null ? "" : $" with the key Cubby:Tls:KeyPath '{options.KeyPath}'";
            throw new InvalidOperationException($"Cubby:Tls:CertificatePath: cannot load the certificate '{path}'{key}: {exception.Message}", exception);
        }

        if (!certificate.HasPrivateKey)
        {
            certificate.Dispose();
            throw new InvalidOperationException($"Cubby:Tls:CertificatePath: the certificate '{path}' has no private key; give a PKCS#12 file with one, or its PEM key in Cubby:Tls:KeyPath.");
        }

        return certificate;
    }

    /// <summary>Whether the options load; the reason when not.</summary>
    public static string? Problem(TlsOptions options)
    {
        try
        {
            using var certificate = Load(options);
            return null;
        }
        catch (InvalidOperationException exception)
        {
            return exception.Message;
        }
    }

    private static X509Certificate2 LoadPem(string certificatePath, string keyPath, string? password)
    {
        using var pem = password is null
            ? X509Certificate2.CreateFromPemFile(certificatePath, keyPath)
            : X509Certificate2.CreateFromEncryptedPemFile(certificatePath, password, keyPath);

        // A PEM key is ephemeral; SslStream on some platforms needs it exportable as PKCS#12 to present it.
        return X509CertificateLoader.LoadPkcs12(pem.Export(X509ContentType.Pkcs12), null);
    }
}
