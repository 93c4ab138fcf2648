namespace Cubby.Resp;

/// <summary>The outcome of an attempt to parse one RESP item from buffered bytes.</summary>
public enum RespParseStatus
{
    /// <summary>A whole item was parsed.</summary>
    Complete,

    /// <summary>The bytes so far are a valid prefix; more must arrive before the item can be parsed.</summary>
    Incomplete,

    /// <summary>The bytes break the protocol or a limit; the connection cannot continue.</summary>
    Error,
}
