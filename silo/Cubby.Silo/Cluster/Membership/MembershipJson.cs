using System.Text.Json.Serialization;

namespace Cubby.Silo.Cluster.Membership;

/// <summary>The JSON of forwarded table operations (Development mode), generated at build time.</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(MembershipRequest))]
[JsonSerializable(typeof(MembershipSnapshot))]
internal sealed partial class MembershipJson : JsonSerializerContext;
