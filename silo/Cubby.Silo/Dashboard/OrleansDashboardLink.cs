using System.Text;
using Microsoft.AspNetCore.Http.HttpResults;

namespace Cubby.Silo.Dashboard;

/// <summary>
/// Adds a "Cubby cache" entry to the Orleans dashboard's sidebar, linking to the cache page. The dashboard has no way
/// to add menu entries, so this endpoint filter puts one into its page: a list beside the element its script fills
/// with the menu, which the script leaves alone. Only the page itself (HTML) is touched, and it is asked for
/// uncompressed so the markup can be found; when the markup is not there (another dashboard version), the page is
/// served as it is.
/// </summary>
internal static class OrleansDashboardLink
{
    private const string MenuMarkup = "<div id=\"menu\"></div>";

    private const string CacheEntry =
        "<ul class=\"nav nav-pills nav-sidebar flex-column\" id=\"cubby-menu\">"
        + "<li class=\"nav-item\"><a href=\"cache/\" class=\"nav-link\"><i class=\"fa fa-memory nav-icon\"></i><p>Cubby cache</p></a></li>"
        + "</ul>";

    public static RouteGroupBuilder AddCacheLink(this RouteGroupBuilder dashboard) => dashboard.AddEndpointFilter(static async (context, next) =>
    {
        var request = context.HttpContext.Request;
        var isPage = request.Path.Value is { } path && (path.EndsWith('/') || path.EndsWith("/index.html", StringComparison.Ordinal));
        if (!isPage)
        {
            return await next(context).ConfigureAwait(false);
        }

        request.Headers.AcceptEncoding = default;
        request.Headers.IfNoneMatch = default;
        var result = await next(context).ConfigureAwait(false);
        if (result is not FileContentHttpResult { ContentType: { } type } page || !type.StartsWith("text/html", StringComparison.Ordinal))
        {
            return result;
        }

        var html = Encoding.UTF8.GetString(page.FileContents.Span);
        var menu = html.IndexOf(MenuMarkup, StringComparison.Ordinal);
        return menu < 0 ? result : TypedResults.Bytes(Encoding.UTF8.GetBytes(html.Insert(menu, CacheEntry)), type);
    });
}
