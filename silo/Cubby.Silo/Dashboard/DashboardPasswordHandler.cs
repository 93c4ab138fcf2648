using System.Security.Claims;
using System.Text.Encodings.Web;
using Microsoft.AspNetCore.Authentication;
using Microsoft.Extensions.Options;
using Microsoft.Net.Http.Headers;

namespace Cubby.Silo.Dashboard;

/// <summary>
/// HTTP Basic against <c>Cubby:Dashboard:Password</c>: ASP.NET Core has no Basic handler of its own. The challenge
/// makes a browser ask for the password.
/// </summary>
internal sealed class DashboardPasswordHandler(
    IOptionsMonitor<AuthenticationSchemeOptions> options, ILoggerFactory loggers, UrlEncoder encoder, DashboardPassword password)
    : AuthenticationHandler<AuthenticationSchemeOptions>(options, loggers, encoder)
{
    public const string Challenge = "Basic realm=\"Cubby\", charset=\"UTF-8\"";

    protected override Task<AuthenticateResult> HandleAuthenticateAsync()
    {
        string? header = Request.Headers.Authorization;
        if (header is null)
        {
            return Task.FromResult(AuthenticateResult.NoResult());
        }

        if (!password.Matches(header, out var user))
        {
            return Task.FromResult(AuthenticateResult.Fail("The Authorization header does not carry Cubby:Dashboard:Password."));
        }

        var identity = new ClaimsIdentity([new Claim(ClaimTypes.Name, user)], Scheme.Name);
        return Task.FromResult(AuthenticateResult.Success(new AuthenticationTicket(new ClaimsPrincipal(identity), Scheme.Name)));
    }

    protected override Task HandleChallengeAsync(AuthenticationProperties properties)
    {
        Response.StatusCode = StatusCodes.Status401Unauthorized;
        Response.Headers[HeaderNames.WWWAuthenticate] = Challenge;
        Response.Headers.CacheControl = "no-store";
        return Task.CompletedTask;
    }
}
