using System.Text.Json;
using System.Text.Json.Serialization;
using Cubby.Silo.Diagnostics;

namespace Cubby.Silo.Dashboard;

/// <summary>The cache page's JSON, source-generated: what the API returns and what silos send each other.</summary>
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
[JsonSerializable(typeof(CacheReport))]
[JsonSerializable(typeof(SiloStats))]
[JsonSerializable(typeof(BusySlot))]
internal sealed partial class DashboardJson : JsonSerializerContext;
