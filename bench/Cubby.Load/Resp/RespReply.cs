namespace Cubby.Load.Resp;

/// <summary>One reply. A bulk string's bytes are copied into <see cref="Bulk"/>, as a real client hands them to its caller.</summary>
/// <remarks>Integer: An integer reply's value, or an array's length. Text: A simple string or an error's text.</remarks>
internal readonly record struct RespReply(RespReplyKind Kind, long Integer = 0, byte[]? Bulk = null, string? Text = null)
{
    public static RespReply Null => new(RespReplyKind.Null);

    public override string ToString() => Kind switch
    {
        RespReplyKind.Simple => $"+{Text}",
        RespReplyKind.Error => $"-{Text}",
        RespReplyKind.Integer => $":{Integer}",
        RespReplyKind.Bulk => $"${Bulk!.Length}",
        RespReplyKind.Array => $"*{Integer}",
        _ => "(nil)",
    };
}
