namespace Cubby.Resp;

/// <summary>The RESP protocol version a connection speaks; it decides how RESP3-only reply types are written.</summary>
public enum RespVersion
{
    /// <summary>RESP2: nulls, maps, sets, doubles and booleans are written with RESP2 types.</summary>
    Resp2 = 2,

    /// <summary>RESP3 (after <c>HELLO 3</c>): every reply type is written natively.</summary>
    Resp3 = 3,
}
