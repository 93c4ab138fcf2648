namespace Cubby.Aspire.Hosting;

/// <summary>The names of a silo resource's endpoints, as the Aspire dashboard lists them.</summary>
public static class CubbyEndpointNames
{
    /// <summary>The RESP (Redis protocol) port: <c>redis-cli</c> and Redis clients connect here.</summary>
    public const string Resp = "resp";

    /// <summary>HTTP: <c>/health</c>, <c>/metrics</c>, the Orleans dashboard at <c>/dashboard/</c> and Cubby's cache page.</summary>
    public const string Http = "http";

    /// <summary>Orleans' silo-to-silo port (named by <c>Aspire.Hosting.Orleans</c>).</summary>
    public const string OrleansSilo = "orleans-silo";

    /// <summary>Orleans' gateway port, where Cubby's client connects (named by <c>Aspire.Hosting.Orleans</c>).</summary>
    public const string OrleansGateway = "orleans-gateway";
}
