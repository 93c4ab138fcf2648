namespace Cubby.Client.Connections;

/// <summary>How a call failed with a <see cref="CubbyConnectionException"/>, which decides whether it may be sent again.</summary>
internal enum CallFailure
{
    /// <summary>Anything else (a malformed reply, a handshake refused): sending again would not help.</summary>
    Other,

    /// <summary>The command never reached the socket: sending it again, anywhere, is always safe.</summary>
    NotSent,

    /// <summary>The command was written, but the connection was lost before its reply: it may or may not have run.</summary>
    LostInFlight,
}
