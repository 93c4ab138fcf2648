using System.Text.Json;

namespace Cubby.Tests.Dashboard;

/// <summary>Reads <c>GET /dashboard/cache/api/silos</c> and the Orleans dashboard's own API as JSON documents.</summary>
internal static class CacheApi
{
    public static Task<JsonElement> ReadAsync(HttpClient http, string? password = null) =>
        ReadJsonAsync(http, "/dashboard/cache/api/silos?seconds=60", password);

    public static async Task<JsonElement> ReadJsonAsync(HttpClient http, string path, string? password = null)
    {
        using var response = await DashboardHttp.GetAsync(http, path, password);
        response.EnsureSuccessStatusCode();
        using var document = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        return document.RootElement.Clone();
    }

    public static JsonElement[] Silos(JsonElement report) => [.. report.GetProperty("silos").EnumerateArray()];

    public static bool HasStats(JsonElement silo) => silo.GetProperty("stats").ValueKind == JsonValueKind.Object;

    public static long Keys(JsonElement silo) => silo.GetProperty("stats").GetProperty("keys").GetInt64();
}
