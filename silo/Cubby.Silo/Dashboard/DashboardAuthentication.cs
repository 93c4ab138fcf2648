using System.Security.Cryptography;
using System.Text;
using Microsoft.AspNetCore.Authentication;

namespace Cubby.Silo.Dashboard;

/// <summary>
/// Protects the dashboards as <see cref="DashboardOptions"/> say: with <c>Cubby:Dashboard:Password</c> through Cubby's
/// HTTP Basic scheme, or with the host's own ASP.NET Core authorization policy.
/// </summary>
internal static class DashboardAuthentication
{
    /// <summary>The authentication scheme that checks <c>Cubby:Dashboard:Password</c>.</summary>
    public const string Scheme = "CubbyDashboardPassword";

    /// <summary>The authorization policy that requires <see cref="Scheme"/>.</summary>
    public const string PasswordPolicy = "CubbyDashboardPassword";

    /// <summary>Registers the password scheme and its policy when a password is configured.</summary>
    public static void AddServices(IServiceCollection services, DashboardOptions options)
    {
        if (options.Password is not { } password)
        {
            return;
        }

        services.AddSingleton(new DashboardPassword(password));
        services.AddAuthentication().AddScheme<AuthenticationSchemeOptions, DashboardPasswordHandler>(Scheme, displayName: "Cubby dashboard password", null);
        services.AddAuthorizationBuilder().AddPolicy(PasswordPolicy, policy => policy.AddAuthenticationSchemes(Scheme).RequireAuthenticatedUser());
    }

    /// <summary>Puts <paramref name="endpoints"/> behind the configured password or policy, if any.</summary>
    public static TBuilder Protect<TBuilder>(TBuilder endpoints, DashboardOptions options)
        where TBuilder : IEndpointConventionBuilder
    {
        var policy = options.Password is not null ? PasswordPolicy : options.AuthorizationPolicy;
        return policy is null ? endpoints : endpoints.RequireAuthorization(policy);
    }
}

/// <summary>The dashboard password, kept only as its SHA-256 so comparisons take the same time whatever is sent.</summary>
internal sealed class DashboardPassword(string password)
{
    private readonly byte[] _hash = SHA256.HashData(Encoding.UTF8.GetBytes(password));

    /// <summary>Whether a Basic <c>Authorization</c> header carries the password (with any user name).</summary>
    public bool Matches(string? header, out string user)
    {
        const string Basic = "Basic ";
        user = "";
        if (header is null || !header.StartsWith(Basic, StringComparison.OrdinalIgnoreCase))
        {
            return false;
        }

        Span<byte> decoded = stackalloc byte[512];
        if (!Convert.TryFromBase64Chars(header.AsSpan(Basic.Length).Trim(), decoded, out var length))
        {
            return false;
        }

        var credentials = decoded[..length];
        var colon = credentials.IndexOf((byte)':');
        if (colon < 0)
        {
            return false;
        }

        Span<byte> sent = stackalloc byte[SHA256.HashSizeInBytes];
        SHA256.HashData(credentials[(colon + 1)..], sent);
        if (!CryptographicOperations.FixedTimeEquals(sent, _hash))
        {
            return false;
        }

        user = Encoding.UTF8.GetString(credentials[..colon]);
        return true;
    }
}
