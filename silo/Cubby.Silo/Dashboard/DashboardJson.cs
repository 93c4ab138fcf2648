using System.Text.Json;
using System.Text.Json.Serialization;
using Cubby.Silo.Diagnostics;

namespace Cubby.Silo.Dashboard;

/// <summary>The dashboard's JSON, source-generated: what the API returns and what silos send each other.</summary>
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
[JsonSerializable(typeof(DashboardReport))]
[JsonSerializable(typeof(SiloStats))]
[JsonSerializable(typeof(BusySlot))]
internal sealed partial class DashboardJson : JsonSerializerContext;
