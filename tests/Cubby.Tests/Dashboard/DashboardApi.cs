using System.Text.Json;

namespace Cubby.Tests.Dashboard;

/// <summary>Reads <c>GET /dashboard/api/cluster</c> as a JSON document.</summary>
internal static class DashboardApi
{
    public static async Task<JsonElement> ReadAsync(HttpClient http, string? password = null)
    {
        using var response = await DashboardHttp.GetAsync(http, "/dashboard/api/cluster?seconds=60", password);
        response.EnsureSuccessStatusCode();
        using var document = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        return document.RootElement.Clone();
    }

    public static JsonElement[] Silos(JsonElement report) => [.. report.GetProperty("silos").EnumerateArray()];

    public static JsonElement Silo(JsonElement report, string id) => Silos(report).Single(silo => silo.GetProperty("id").GetString() == id);

    public static string Status(JsonElement silo) => silo.GetProperty("status").GetString()!;

    public static bool HasStats(JsonElement silo) => silo.GetProperty("stats").ValueKind == JsonValueKind.Object;
}
