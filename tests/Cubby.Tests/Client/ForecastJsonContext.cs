using System.Text.Json.Serialization;

namespace Cubby.Tests.Client;

/// <summary>A source-generated context that knows only <see cref="Forecast"/>, so a fallback to reflection would show.</summary>
[JsonSerializable(typeof(Forecast))]
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.SnakeCaseLower)]
internal sealed partial class ForecastJsonContext : JsonSerializerContext;
