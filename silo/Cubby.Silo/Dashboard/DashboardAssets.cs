using System.Security.Cryptography;

namespace Cubby.Silo.Dashboard;

/// <summary>
/// The dashboard's page, script and style sheet, embedded in the silo assembly (no files to deploy, no external URLs),
/// loaded once with their content types and entity tags.
/// </summary>
internal sealed class DashboardAssets
{
    private const string ResourcePrefix = "Cubby.Silo.Dashboard.Assets.";

    private readonly Dictionary<string, DashboardAsset> _assets = new(StringComparer.Ordinal);

    public DashboardAssets()
    {
        var assembly = typeof(DashboardAssets).Assembly;
        foreach (var resource in assembly.GetManifestResourceNames().Where(static name => name.StartsWith(ResourcePrefix, StringComparison.Ordinal)))
        {
            using var stream = assembly.GetManifestResourceStream(resource)!;
            using var copy = new MemoryStream();
            stream.CopyTo(copy);
            var content = copy.ToArray();
            var name = resource[ResourcePrefix.Length..];
            var tag = $"\"{Convert.ToHexStringLower(SHA256.HashData(content).AsSpan(0, 12))}\"";
            _assets[name] = new DashboardAsset(content, ContentTypeOf(name), tag);
        }
    }

    public IEnumerable<string> Names => _assets.Keys;

    public DashboardAsset this[string name] => _assets.TryGetValue(name, out var asset)
        ? asset
        : throw new InvalidOperationException($"The dashboard asset '{name}' is not embedded in the silo assembly.");

    private static string ContentTypeOf(string name) => Path.GetExtension(name) switch
    {
        ".html" => "text/html; charset=utf-8",
        ".js" => "text/javascript; charset=utf-8",
        ".css" => "text/css; charset=utf-8",
        ".svg" => "image/svg+xml",
        _ => throw new InvalidOperationException($"The dashboard asset '{name}' has no known content type."),
    };
}

/// <summary>One embedded file, ready to serve.</summary>
/// <param name="Content">Its bytes.</param>
/// <param name="ContentType">Its media type.</param>
/// <param name="ETag">A strong entity tag of its content.</param>
internal sealed record DashboardAsset(byte[] Content, string ContentType, string ETag) : IResult
{
    /// <summary>
    /// Writes the file, or 304 when the browser's copy is current. <c>no-cache</c> makes browsers revalidate every load,
    /// so a silo upgrade shows its new dashboard at once while an unchanged one costs only the 304.
    /// </summary>
    public Task ExecuteAsync(HttpContext httpContext)
    {
        var response = httpContext.Response;
        response.Headers.ETag = ETag;
        response.Headers.CacheControl = "no-cache";
        DashboardHeaders.Apply(response);
        if (httpContext.Request.Headers.IfNoneMatch.Contains(ETag))
        {
            response.StatusCode = StatusCodes.Status304NotModified;
            return Task.CompletedTask;
        }

        response.ContentType = ContentType;
        response.ContentLength = Content.Length;
        return httpContext.Request.Method == HttpMethods.Head ? Task.CompletedTask : response.Body.WriteAsync(Content).AsTask();
    }
}
