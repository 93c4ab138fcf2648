using System.Text.Json;

namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// Suspicions as the <c>jsonb</c> the membership table stores: <c>[{"by": "silo id", "at": "ISO 8601 time"}, ...]</c>.
/// Written and read by hand: two fields do not need a serializer's reflection.
/// </summary>
internal static class PostgresSuspicions
{
    private const string BySiloId = "by";
    private const string At = "at";

    /// <summary>The JSON text of <paramref name="suspicions"/>, in order.</summary>
    public static string ToJson(IReadOnlyList<Suspicion> suspicions)
    {
        if (suspicions.Count == 0)
        {
            return "[]";
        }

        var buffer = new System.Buffers.ArrayBufferWriter<byte>(64 * suspicions.Count);
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartArray();
            foreach (var suspicion in suspicions)
            {
                writer.WriteStartObject();
                writer.WriteString(BySiloId, suspicion.BySiloId);
                writer.WriteString(At, suspicion.At);
                writer.WriteEndObject();
            }

            writer.WriteEndArray();
        }

        return System.Text.Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    /// <summary>The suspicions in <paramref name="json"/>, in order.</summary>
    /// <exception cref="InvalidDataException">The column holds something else than this format.</exception>
    public static Suspicion[] FromJson(string json)
    {
        try
        {
            using var document = JsonDocument.Parse(json);
            var array = document.RootElement;
            var suspicions = new Suspicion[array.GetArrayLength()];
            var index = 0;
            foreach (var item in array.EnumerateArray())
            {
                var by = item.GetProperty(BySiloId).GetString() ?? throw new InvalidDataException("A suspicion has a null silo id.");
                suspicions[index++] = new Suspicion(by, item.GetProperty(At).GetDateTimeOffset());
            }

            return suspicions;
        }
        catch (Exception exception) when (exception is JsonException or InvalidOperationException or KeyNotFoundException or FormatException)
        {
            throw new InvalidDataException($"The suspicions column holds '{json}', not an array of {{\"{BySiloId}\", \"{At}\"}} objects.", exception);
        }
    }
}
