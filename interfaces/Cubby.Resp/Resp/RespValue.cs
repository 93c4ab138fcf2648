using System.Globalization;
using System.Text;

namespace Cubby.Resp;

/// <summary>
/// One whole RESP value, with nested values for aggregates. Meant for tests, tooling and client paths that are not hot:
/// reading one allocates.
/// </summary>
internal sealed class RespValue
{
    private const int MaxDisplayedBytes = 200;

    private RespValue(RespType type)
    {
        Type = type;
    }

    /// <summary>
    /// The value's type. The RESP2 nulls keep their types (<see cref="RespType.BulkString"/> for <c>$-1</c>,
    /// <see cref="RespType.Array"/> for <c>*-1</c>) with <see cref="IsNull"/> set; the RESP3 null is <see cref="RespType.Null"/>.
    /// </summary>
    public RespType Type { get; }

    /// <summary>True for RESP2 <c>$-1</c> and <c>*-1</c> and RESP3 <c>_</c>.</summary>
    public bool IsNull { get; private init; }

    /// <summary>True for <see cref="RespType.Error"/> and <see cref="RespType.BulkError"/>.</summary>
    public bool IsError => Type is RespType.Error or RespType.BulkError;

    /// <summary>
    /// The payload of a scalar as sent: the text or bytes of simple strings, bulk strings, errors, bulk errors and big
    /// numbers; a verbatim string's text without its <c>fmt:</c> prefix; the digits of an integer, the text of a double,
    /// <c>t</c> or <c>f</c> for a boolean. Empty for nulls and aggregates.
    /// </summary>
    public ReadOnlyMemory<byte> Bytes { get; private init; }

    /// <summary>A verbatim string's three-letter format, such as <c>txt</c> or <c>mkd</c>; null for other types.</summary>
    public string? VerbatimFormat { get; private init; }

    /// <summary>The value of an <see cref="RespType.Integer"/>; 0 for other types.</summary>
    public long Integer { get; private init; }

    /// <summary>The value of a <see cref="RespType.Double"/>; 0 for other types.</summary>
    public double Double { get; private init; }

    /// <summary>The value of a <see cref="RespType.Boolean"/>; false for other types.</summary>
    public bool Boolean { get; private init; }

    /// <summary>
    /// The elements of an array, set or push; of a map, its keys and values alternately (k1, v1, k2, v2...).
    /// Empty for scalars and nulls.
    /// </summary>
    public IReadOnlyList<RespValue> Items { get; private init; } = [];

    /// <summary>The UTF-8 text of <see cref="Bytes"/>, or null when <see cref="IsNull"/>.</summary>
    public string? AsString() => IsNull ? null : Encoding.UTF8.GetString(Bytes.Span);

    /// <summary>A readable form for debugging and test messages, in the style of redis-cli.</summary>
    public override string ToString()
    {
        var text = new StringBuilder();
        Append(text);
        return text.ToString();
    }

    internal static RespValue Null(RespType type) => new(type) { IsNull = true };

    internal static RespValue Scalar(RespType type, byte[] bytes, long integer = 0, double @double = 0, bool boolean = false) =>
        new(type) { Bytes = bytes, Integer = integer, Double = @double, Boolean = boolean };

    internal static RespValue Verbatim(string format, ReadOnlyMemory<byte> text) =>
        new(RespType.VerbatimString) { Bytes = text, VerbatimFormat = format };

    internal static RespValue Aggregate(RespType type, RespValue[] items) => new(type) { Items = items };

    private void Append(StringBuilder text)
    {
        if (IsNull)
        {
            text.Append("(nil)");
            return;
        }

        switch (Type)
        {
            case RespType.Error or RespType.BulkError:
                text.Append("(error) ");
                AppendBytes(text, quoted: false);
                break;
            case RespType.Integer:
                text.Append("(integer) ").Append(Integer.ToString(CultureInfo.InvariantCulture));
                break;
            case RespType.Double:
                text.Append("(double) ");
                AppendBytes(text, quoted: false);
                break;
            case RespType.Boolean:
                text.Append(Boolean ? "(true)" : "(false)");
                break;
            case RespType.BigNumber:
                text.Append("(big number) ");
                AppendBytes(text, quoted: false);
                break;
            case RespType.VerbatimString:
                text.Append('(').Append(VerbatimFormat).Append(") ");
                AppendBytes(text, quoted: true);
                break;
            case RespType.Array or RespType.Set or RespType.Push or RespType.Map:
                AppendItems(text);
                break;
            default:
                AppendBytes(text, quoted: true);
                break;
        }
    }

    private void AppendItems(StringBuilder text)
    {
        bool isMap = Type == RespType.Map;
        text.Append(Type switch
        {
            RespType.Map => "{",
            RespType.Set => "~[",
            RespType.Push => ">[",
            _ => "[",
        });
        for (int i = 0; i < Items.Count; i++)
        {
            if (i > 0)
            {
                text.Append(isMap && i % 2 == 1 ? ": " : ", ");
            }

            Items[i].Append(text);
        }

        text.Append(isMap ? "}" : "]");
    }

    private void AppendBytes(StringBuilder text, bool quoted)
    {
        ReadOnlySpan<byte> bytes = Bytes.Span;
        bool truncated = bytes.Length > MaxDisplayedBytes;
        if (truncated)
        {
            bytes = bytes[..MaxDisplayedBytes];
        }

        if (quoted)
        {
            text.Append('"');
        }

        foreach (byte b in bytes)
        {
            switch (b)
            {
                case (byte)'"' when quoted:
                    text.Append("\\\"");
                    break;
                case (byte)'\\':
                    text.Append("\\\\");
                    break;
                case >= 0x20 and < 0x7F:
                    text.Append((char)b);
                    break;
                default:
                    text.Append(CultureInfo.InvariantCulture, $"\\x{b:x2}");
                    break;
            }
        }

        if (quoted)
        {
            text.Append('"');
        }

        if (truncated)
        {
            text.Append(CultureInfo.InvariantCulture, $"... ({Bytes.Length} bytes)");
        }
    }
}
