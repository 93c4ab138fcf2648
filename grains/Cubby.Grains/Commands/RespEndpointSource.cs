namespace Cubby.Grains.Commands;

/// <summary>
/// Where clients reach this silo's RESP front door (<c>host:port</c>), for CUBBY.OWNER: registered by a silo that has one,
/// absent on a silo that hosts shards without it (CUBBY.OWNER then answers null there).
/// </summary>
/// <param name="endpoint">Reads the endpoint, once the front door's listener is bound.</param>
internal sealed class RespEndpointSource(Func<string> endpoint)
{
    public string Endpoint => endpoint();
}
