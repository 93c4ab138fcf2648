namespace Cubby.Load.Resp;

/// <summary>The reply types the harness tells apart.</summary>
internal enum RespReplyKind
{
    Simple,
    Error,
    Integer,
    Bulk,
    Null,
    Array,
}
