using System.Text.Json;
using System.Text.Json.Serialization;
using Cubby.Load.Measurement;

namespace Cubby.Load.Reports;

/// <summary>The run as JSON, every round included, for tools and later comparison.</summary>
internal static class JsonReport
{
    private static readonly JsonSerializerOptions Options = new(JsonSerializerDefaults.Web)
    {
        WriteIndented = true,
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    };

    public static string Write(RunReport report) => JsonSerializer.Serialize(report, Options);
}
