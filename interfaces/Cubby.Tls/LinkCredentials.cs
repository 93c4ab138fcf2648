using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using Orleans.Connections.Security;
using OrleansTlsOptions = Orleans.Connections.Security.TlsOptions;

namespace Cubby.Tls;

/// <summary>
/// What one end of an Orleans link (silo to silo, client to gateway) presents and trusts: its own certificate, and the
/// authorities a peer's certificate must chain to. Those authorities are the cluster's own (its private CA, or one
/// certificate every member shares), so a chain to them is what admits a peer. Host names are not compared: silos
/// reach each other at the addresses in the membership table, which certificates rarely name.
/// </summary>
public sealed class LinkCredentials
{
    private static readonly Oid ServerAuthentication = new("1.3.6.1.5.5.7.3.1");
    private static readonly Oid ClientAuthentication = new("1.3.6.1.5.5.7.3.2");

    private LinkCredentials(X509Certificate2? certificate, X509Certificate2Collection authorities)
    {
        Certificate = certificate;
        Authorities = authorities;
    }

    /// <summary>The certificate this end presents, or null for a client that presents none.</summary>
    public X509Certificate2? Certificate { get; }

    /// <summary>The certificates a peer's certificate must chain to.</summary>
    public X509Certificate2Collection Authorities { get; }

    /// <summary>
    /// Loads the certificate of <paramref name="options"/> (if it names one) and the authorities in
    /// <paramref name="authorityPath"/>; without an authority file the certificate itself is the one trusted.
    /// </summary>
    /// <param name="options">The certificate this end presents, if any.</param>
    /// <param name="authorityPath">The authorities' PEM bundle or DER file, or null to trust the certificate itself.</param>
    /// <param name="section">The options' configuration section, for messages.</param>
    /// <returns>The credentials.</returns>
    /// <exception cref="InvalidOperationException">A file cannot be used; the message names the setting.</exception>
    public static LinkCredentials Load(CertificateFileOptions options, string? authorityPath, string section)
    {
        var certificate = options.CertificatePath is null ? null : CertificateFiles.LoadWithKey(options, section);
        var authorities = authorityPath is not null ? CertificateFiles.LoadAuthorities(authorityPath, $"{section}:AuthorityPath")
            : certificate is not null ? new X509Certificate2Collection(X509CertificateLoader.LoadCertificate(certificate.RawData))
            : throw new InvalidOperationException($"{section}: set AuthorityPath (the authority silos' certificates chain to) or CertificatePath.");
        return new LinkCredentials(certificate, authorities);
    }

    /// <summary>
    /// Why the own certificate would be refused by the peers it is meant for, or null: outside its validity period,
    /// an extended key usage without <paramref name="serverRole"/>'s or <paramref name="clientRole"/>'s purpose, or no
    /// chain to <see cref="Authorities"/>.
    /// </summary>
    /// <param name="section">The options' configuration section, for the message.</param>
    /// <param name="time">The clock the validity period is read against.</param>
    /// <param name="serverRole">Whether peers connect to this end (it must allow server authentication).</param>
    /// <param name="clientRole">Whether this end connects to peers (it must allow client authentication).</param>
    /// <returns>A message naming the setting, or null when the certificate will do.</returns>
    public string? Problem(string section, TimeProvider time, bool serverRole, bool clientRole)
    {
        if (Certificate is not { } certificate)
        {
            return null;
        }

        var now = time.GetUtcNow();
        var path = $"{section}:CertificatePath";
        if (now > certificate.NotAfter.ToUniversalTime() || now < certificate.NotBefore.ToUniversalTime())
        {
            return $"{path}: the certificate is valid from {certificate.NotBefore.ToUniversalTime():u} to {certificate.NotAfter.ToUniversalTime():u}, not now.";
        }

        if (serverRole && !AllowsPurpose(certificate, ServerAuthentication))
        {
            return $"{path}: the certificate's extended key usage lacks server authentication ({ServerAuthentication.Value}), which its peers require.";
        }

        if (clientRole && !AllowsPurpose(certificate, ClientAuthentication))
        {
            return $"{path}: the certificate's extended key usage lacks client authentication ({ClientAuthentication.Value}), which it needs to connect to silos.";
        }

        return Chains(certificate, null, purpose: null) ? null
            : $"{path}: the certificate does not chain to {section}:AuthorityPath (or is not the one trusted without it), so its peers would refuse it.";
    }

    /// <summary>The accepting side: presents the certificate and, when <paramref name="requirePeerCertificate"/>, admits only peers whose certificate chains to the authorities.</summary>
    /// <param name="requirePeerCertificate">Whether a peer must present a certificate.</param>
    /// <returns>Orleans' TLS options for a listener.</returns>
    public OrleansTlsOptions ForAccepting(bool requirePeerCertificate) => new()
    {
        LocalCertificate = Certificate ?? throw new InvalidOperationException("A listening end needs a certificate."),
        RemoteCertificateMode = requirePeerCertificate ? RemoteCertificateMode.RequireCertificate : RemoteCertificateMode.NoCertificate,
        RemoteCertificateValidation = (peer, chain, _) => Chains(peer, chain, ClientAuthentication),
    };

    /// <summary>The connecting side: accepts only a server whose certificate chains to the authorities, and presents its own if it has one.</summary>
    /// <returns>Orleans' TLS options for a connection.</returns>
    public OrleansTlsOptions ForConnecting() => new()
    {
        LocalCertificate = Certificate,
        ClientCertificateMode = Certificate is null ? RemoteCertificateMode.NoCertificate : RemoteCertificateMode.RequireCertificate,
        RemoteCertificateMode = RemoteCertificateMode.RequireCertificate,
        RemoteCertificateValidation = (peer, chain, _) => Chains(peer, chain, ServerAuthentication),
    };

    // SslStream's own verdict is set aside (it compares host names and trusts the system's roots); the chain is
    // built again against the cluster's authorities alone.
    private bool Chains(X509Certificate2 peer, X509Chain? presented, Oid? purpose)
    {
        using var chain = new X509Chain();
        chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
        chain.ChainPolicy.CustomTrustStore.AddRange(Authorities);
        chain.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
        if (purpose is not null)
        {
            chain.ChainPolicy.ApplicationPolicy.Add(purpose);
        }

        if (presented is not null)
        {
            foreach (var element in presented.ChainElements)
            {
                chain.ChainPolicy.ExtraStore.Add(element.Certificate);
            }
        }

        return chain.Build(peer);
    }

    private static bool AllowsPurpose(X509Certificate2 certificate, Oid purpose) =>
        certificate.Extensions.OfType<X509EnhancedKeyUsageExtension>().FirstOrDefault() is not { } usage
        || usage.EnhancedKeyUsages.Cast<Oid>().Any(oid => oid.Value == purpose.Value);
}
