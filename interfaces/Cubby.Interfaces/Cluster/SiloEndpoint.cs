namespace Cubby.Cluster;

/// <summary>A silo as clients see it: a unique identity (one per start of the silo) and the RESP endpoint to reach it.</summary>
/// <param name="Id">Unique per silo start; placement hashes it.</param>
/// <param name="Host">The host name or IP address clients connect to.</param>
/// <param name="Port">The RESP port.</param>
public sealed record SiloEndpoint(string Id, string Host, int Port)
{
    /// <summary>"host:port", as endpoints are configured.</summary>
    public override string ToString() => $"{Host}:{Port}";
}
