namespace Cubby.Grains.Hosting;

/// <summary>
/// Where clients reach this silo's RESP front door (<c>host:port</c>): what <c>CUBBY.OWNER</c> answers for the shards
/// here, and what other silos read of this one (<c>INFO cluster</c>, and whether to forward pub/sub messages to it).
/// <c>AddCubby</c> registers one without a door, unless the host registered its own first.
/// </summary>
/// <param name="endpoint">
/// Reads the door's bound <c>host:port</c> whenever asked, throwing <see cref="InvalidOperationException"/> until the
/// listener is bound; null for a silo without a door.
/// </param>
public sealed class RespFrontDoor(Func<string>? endpoint = null)
{
    /// <summary>The door's <c>host:port</c>, or empty when this silo has none.</summary>
    /// <exception cref="InvalidOperationException">The door's listener is not bound yet: ask again later.</exception>
    public string Endpoint => endpoint?.Invoke() ?? string.Empty;
}
