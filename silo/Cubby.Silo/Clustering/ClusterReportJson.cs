using System.Text.Json;
using System.Text.Json.Serialization;

namespace Cubby.Silo.Clustering;

/// <summary>The JSON of <c>GET /cluster</c>, generated at build time.</summary>
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web, WriteIndented = true, UseStringEnumConverter = true)]
[JsonSerializable(typeof(ClusterReport))]
internal sealed partial class ClusterReportJson : JsonSerializerContext;
