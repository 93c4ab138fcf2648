namespace Cubby.Resp;

/// <summary>Parses decimal integers straight from protocol bytes, without strings.</summary>
internal static class RespNumberParser
{
    /// <summary>The longest decimal text of a 64-bit integer: a sign and 19 digits.</summary>
    public const int MaxInt64Length = 20;

    /// <summary>
    /// Parses with the rules Redis applies to lengths and numeric arguments: an optional <c>-</c>, no <c>+</c>,
    /// no leading zeros, no <c>-0</c>, and the value must fit in a <see cref="long"/>.
    /// </summary>
    public static bool TryParseStrict(ReadOnlySpan<byte> text, out long value)
    {
        value = 0;
        if (text.IsEmpty || text.Length > MaxInt64Length)
        {
            return false;
        }

        if (text.Length == 1 && text[0] == (byte)'0')
        {
            return true;
        }

        bool negative = text[0] == (byte)'-';
        ReadOnlySpan<byte> digits = negative ? text[1..] : text;
        return !digits.IsEmpty && digits[0] is >= (byte)'1' and <= (byte)'9' && TryAccumulate(digits, negative, out value);
    }

    /// <summary>Parses a RESP3 reply integer: an optional <c>+</c> or <c>-</c>, then at least one digit.</summary>
    public static bool TryParseLenient(ReadOnlySpan<byte> text, out long value)
    {
        value = 0;
        if (text.IsEmpty)
        {
            return false;
        }

        bool negative = text[0] == (byte)'-';
        ReadOnlySpan<byte> digits = text[0] is (byte)'-' or (byte)'+' ? text[1..] : text;
        return !digits.IsEmpty && TryAccumulate(digits, negative, out value);
    }

    private static bool TryAccumulate(ReadOnlySpan<byte> digits, bool negative, out long value)
    {
        value = 0;
        ulong magnitude = 0;
        foreach (byte b in digits)
        {
            uint digit = (uint)(b - '0');
            if (digit > 9 || magnitude > (ulong.MaxValue - digit) / 10)
            {
                return false;
            }

            magnitude = (magnitude * 10) + digit;
        }

        if (negative)
        {
            if (magnitude > (ulong)long.MaxValue + 1)
            {
                return false;
            }

            value = unchecked((long)(0UL - magnitude));
            return true;
        }

        if (magnitude > long.MaxValue)
        {
            return false;
        }

        value = (long)magnitude;
        return true;
    }
}
