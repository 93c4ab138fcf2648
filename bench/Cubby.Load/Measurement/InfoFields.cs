using System.Globalization;
using StackExchange.Redis;

namespace Cubby.Load.Measurement;

/// <summary>The <c>field:value</c> lines of an <c>INFO</c> section.</summary>
internal static class InfoFields
{
    public static async Task<Dictionary<string, string>> ReadAsync(IDatabase database, string section)
    {
        var reply = await database.ExecuteAsync("INFO", section).ConfigureAwait(false);
        var fields = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var line in ((string?)reply ?? string.Empty).Split("\r\n"))
        {
            var colon = line.IndexOf(':', StringComparison.Ordinal);
            if (colon > 0 && !line.StartsWith('#'))
            {
                fields[line[..colon]] = line[(colon + 1)..];
            }
        }

        return fields;
    }

    /// <summary>A numeric field, or 0 when it is absent or not a number.</summary>
    public static double Number(IReadOnlyDictionary<string, string> fields, string name) =>
        fields.TryGetValue(name, out var text) && double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out var value) ? value : 0;
}
