using System.Security.Cryptography;
using System.Text;
using Microsoft.Net.Http.Headers;

namespace Cubby.Silo.Dashboard;

/// <summary>
/// HTTP Basic authentication against one password (any user name), compared in constant time: both sides are hashed
/// first, so neither the password's content nor its length shows in the comparison's timing.
/// </summary>
internal static class BasicAuthentication
{
    public const string Challenge = "Basic realm=\"Cubby\", charset=\"UTF-8\"";

    /// <summary>An endpoint filter that answers 401 with a challenge unless the request carries <paramref name="password"/>.</summary>
    public static EndpointFilterDelegate Require(string password, EndpointFilterDelegate next)
    {
        var expected = SHA256.HashData(Encoding.UTF8.GetBytes(password));
        return context => IsAuthorized(context.HttpContext.Request.Headers.Authorization, expected)
            ? next(context)
            : ValueTask.FromResult<object?>(new Unauthorized());
    }

    public static bool IsAuthorized(string? header, ReadOnlySpan<byte> expectedHash)
    {
        const string Scheme = "Basic ";
        if (header is null || !header.StartsWith(Scheme, StringComparison.OrdinalIgnoreCase))
        {
            return false;
        }

        Span<byte> decoded = stackalloc byte[512];
        if (!Convert.TryFromBase64Chars(header.AsSpan(Scheme.Length).Trim(), decoded, out var length))
        {
            return false;
        }

        var credentials = decoded[..length];
        var colon = credentials.IndexOf((byte)':');
        if (colon < 0)
        {
            return false;
        }

        Span<byte> actual = stackalloc byte[SHA256.HashSizeInBytes];
        SHA256.HashData(credentials[(colon + 1)..], actual);
        return CryptographicOperations.FixedTimeEquals(actual, expectedHash);
    }

    /// <summary>401 with the challenge that makes a browser ask for the password.</summary>
    private sealed class Unauthorized : IResult
    {
        public Task ExecuteAsync(HttpContext httpContext)
        {
            httpContext.Response.StatusCode = StatusCodes.Status401Unauthorized;
            httpContext.Response.Headers[HeaderNames.WWWAuthenticate] = Challenge;
            httpContext.Response.Headers.CacheControl = "no-store";
            return Task.CompletedTask;
        }
    }
}
