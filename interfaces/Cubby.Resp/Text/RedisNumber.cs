using System.Buffers.Text;
using System.Globalization;
using System.Text;

namespace Cubby.Text;

/// <summary>
/// Numbers as Redis reads and writes them in arguments and string values: strict integers (no sign but '-', no
/// leading zeros, no spaces) and floats in invariant notation. Nothing here allocates.
/// </summary>
public static class RedisNumber
{
    /// <summary>The longest text a 64-bit integer formats to.</summary>
    public const int MaxInt64Length = 20;

    /// <summary>Enough room for any double formatted by <see cref="FormatDouble"/>.</summary>
    public const int MaxDoubleLength = 400;

    /// <summary>Parses a strict 64-bit integer: "-?[1-9][0-9]*" or "0", within range.</summary>
    /// <param name="text">The ASCII digits.</param>
    /// <param name="value">The integer, when the text is one.</param>
    /// <returns>True when <paramref name="text"/> is exactly one integer in range.</returns>
    public static bool TryParseInt64(ReadOnlySpan<byte> text, out long value) => Resp.RespNumberParser.TryParseStrict(text, out value);

    /// <summary>Parses a float as Redis accepts it: invariant notation, exponents, "inf"/"-inf"; no spaces, no NaN.</summary>
    /// <param name="text">The ASCII text.</param>
    /// <param name="value">The number, when the text is one.</param>
    /// <returns>True when <paramref name="text"/> is exactly one float.</returns>
    public static bool TryParseDouble(ReadOnlySpan<byte> text, out double value)
    {
        value = 0;
        if (text.IsEmpty || text.Length > MaxDoubleLength || IsSpace(text[0]) || IsSpace(text[^1]))
        {
            return false;
        }

        Span<char> chars = stackalloc char[text.Length];
        for (var i = 0; i < text.Length; i++)
        {
            chars[i] = (char)text[i];
        }

        if (chars.Equals("inf", StringComparison.OrdinalIgnoreCase) || chars.Equals("+inf", StringComparison.OrdinalIgnoreCase) || chars.Equals("infinity", StringComparison.OrdinalIgnoreCase))
        {
            value = double.PositiveInfinity;
            return true;
        }

        if (chars.Equals("-inf", StringComparison.OrdinalIgnoreCase) || chars.Equals("-infinity", StringComparison.OrdinalIgnoreCase))
        {
            value = double.NegativeInfinity;
            return true;
        }

        return double.TryParse(chars, NumberStyles.AllowLeadingSign | NumberStyles.AllowDecimalPoint | NumberStyles.AllowExponent, CultureInfo.InvariantCulture, out value)
            && double.IsFinite(value);
    }

    /// <summary>Formats an integer as ASCII digits.</summary>
    /// <param name="value">The integer.</param>
    /// <param name="destination">At least <see cref="MaxInt64Length"/> bytes.</param>
    /// <returns>The bytes written.</returns>
    public static int FormatInt64(long value, Span<byte> destination)
    {
        if (!Utf8Formatter.TryFormat(value, destination, out var written))
        {
            throw new ArgumentException("The destination is too small for a 64-bit integer.", nameof(destination));
        }

        return written;
    }

    /// <summary>Formats a float the way INCRBYFLOAT shows it: shortest round-trip digits, never an exponent.</summary>
    /// <param name="value">A finite number.</param>
    /// <param name="destination">At least <see cref="MaxDoubleLength"/> bytes.</param>
    /// <returns>The bytes written.</returns>
    public static int FormatDouble(double value, Span<byte> destination)
    {
        Span<char> chars = stackalloc char[MaxDoubleLength];
        if (!value.TryFormat(chars, out var length, "R", CultureInfo.InvariantCulture))
        {
            throw new ArgumentException("The destination is too small for a float.", nameof(destination));
        }

        if (chars[..length].ContainsAny('E', 'e'))
        {
            // Redis never prints an exponent for INCRBYFLOAT; expand to positional digits, trimming trailing zeros.
            value.TryFormat(chars, out length, "F17", CultureInfo.InvariantCulture);
            if (chars[..length].Contains('.'))
            {
                length = chars[..length].TrimEnd('0').TrimEnd('.').Length;
            }
        }

        return Encoding.ASCII.GetBytes(chars[..length], destination);
    }

    /// <summary>
    /// Formats <paramref name="current"/> + <paramref name="delta"/> as INCRBYFLOAT stores it. Redis adds in long
    /// double and prints 17 decimal places (trailing zeros trimmed), so 0.1 + 0.2 shows as 0.3 and x + -x as 0.
    /// Decimal arithmetic on each number's shortest round-trip digits gives the same text wherever it has the range.
    /// </summary>
    /// <param name="current">The stored number.</param>
    /// <param name="delta">The increment.</param>
    /// <param name="destination">At least <see cref="MaxDoubleLength"/> bytes.</param>
    /// <returns>The bytes written.</returns>
    public static int FormatSum(double current, double delta, Span<byte> destination)
    {
        const double DecimalRange = 1e27;
        const int RedisDecimalPlaces = 17;
        if (Math.Abs(current) < DecimalRange && Math.Abs(delta) < DecimalRange && TryDecimal(current, out var a) && TryDecimal(delta, out var b))
        {
            var sum = decimal.Round(a + b, RedisDecimalPlaces);
            Span<char> chars = stackalloc char[64];
            (sum == 0 ? 0m : sum).TryFormat(chars, out var length, "0.#################", CultureInfo.InvariantCulture);
            return Encoding.ASCII.GetBytes(chars[..length], destination);
        }

        return FormatDouble(current + delta == 0 ? 0 : current + delta, destination);
    }

    /// <summary>
    /// The decimal with a double's shortest round-trip digits (a cast keeps only 15 significant digits, so 1/41 would
    /// lose its last two and no longer cancel its negation).
    /// </summary>
    private static bool TryDecimal(double value, out decimal result)
    {
        Span<char> chars = stackalloc char[MaxDoubleLength];
        result = 0;
        return value.TryFormat(chars, out var length, "R", CultureInfo.InvariantCulture)
            && decimal.TryParse(chars[..length], NumberStyles.Float, CultureInfo.InvariantCulture, out result);
    }

    private static bool IsSpace(byte c) => c is (byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n' or (byte)'\v' or (byte)'\f';
}
