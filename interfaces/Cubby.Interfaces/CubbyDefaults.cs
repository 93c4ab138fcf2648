namespace Cubby;

/// <summary>Defaults silos and clients share, so a client with no settings finds, and fits, a silo with none.</summary>
public static class CubbyDefaults
{
    /// <summary>Orleans' cluster id of a Cubby cluster unless configured otherwise.</summary>
    public const string ClusterId = "cubby";

    /// <summary>Orleans' service id of a Cubby cluster unless configured otherwise.</summary>
    public const string ServiceId = "cubby";

    /// <summary>The port silos accept Orleans clients on unless configured otherwise.</summary>
    public const int GatewayPort = 30000;

    /// <summary>The longest key, in UTF-8 bytes, unless configured otherwise.</summary>
    public const int MaxKeyBytes = 16 * 1024;

    /// <summary>The largest value, in bytes, unless configured otherwise.</summary>
    public const int MaxValueBytes = 16 * 1024 * 1024;
}
