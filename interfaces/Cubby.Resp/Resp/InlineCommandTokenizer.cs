namespace Cubby.Resp;

/// <summary>
/// Splits an inline command line into arguments with the quoting rules of Redis: whitespace separates arguments;
/// "double quotes" understand \n \r \t \b \a \\ \" and \xHH; 'single quotes' understand \'; a closing quote must be
/// followed by whitespace or the end of the line.
/// </summary>
internal static class InlineCommandTokenizer
{
    /// <summary>Writes the arguments of <paramref name="line"/> into <paramref name="request"/>.</summary>
    /// <returns>False when a quote is unbalanced (or a closing quote is followed by something other than whitespace).</returns>
    public static bool TryTokenize(ReadOnlySpan<byte> line, RespRequest request)
    {
        // Unescaping only ever shrinks the text, so the line's length is enough room for every argument.
        Span<byte> output = request.BeginInline(line.Length);
        int written = 0;
        int i = 0;
        while (true)
        {
            while (i < line.Length && IsSpace(line[i]))
            {
                i++;
            }

            if (i == line.Length)
            {
                return true;
            }

            int start = written;
            if (!TryReadArgument(line, ref i, output, ref written))
            {
                return false;
            }

            request.AddInlineArgument(start, written - start);
        }
    }

    private static bool TryReadArgument(ReadOnlySpan<byte> line, ref int i, Span<byte> output, ref int written)
    {
        while (i < line.Length)
        {
            byte c = line[i];
            switch (c)
            {
                case (byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n':
                    i++;
                    return true;
                case (byte)'"':
                    i++;
                    if (!TryReadDoubleQuoted(line, ref i, output, ref written))
                    {
                        return false;
                    }

                    return true;
                case (byte)'\'':
                    i++;
                    if (!TryReadSingleQuoted(line, ref i, output, ref written))
                    {
                        return false;
                    }

                    return true;
                default:
                    output[written++] = c;
                    i++;
                    break;
            }
        }

        return true;
    }

    private static bool TryReadDoubleQuoted(ReadOnlySpan<byte> line, ref int i, Span<byte> output, ref int written)
    {
        while (i < line.Length)
        {
            byte c = line[i];
            if (c == (byte)'\\' && i + 3 < line.Length && line[i + 1] == (byte)'x' && IsHex(line[i + 2]) && IsHex(line[i + 3]))
            {
                output[written++] = (byte)((HexValue(line[i + 2]) << 4) | HexValue(line[i + 3]));
                i += 4;
            }
            else if (c == (byte)'\\' && i + 1 < line.Length)
            {
                output[written++] = line[i + 1] switch
                {
                    (byte)'n' => (byte)'\n',
                    (byte)'r' => (byte)'\r',
                    (byte)'t' => (byte)'\t',
                    (byte)'b' => (byte)'\b',
                    (byte)'a' => (byte)'\a',
                    byte other => other,
                };
                i += 2;
            }
            else if (c == (byte)'"')
            {
                return ClosesArgument(line, ref i);
            }
            else
            {
                output[written++] = c;
                i++;
            }
        }

        return false;
    }

    private static bool TryReadSingleQuoted(ReadOnlySpan<byte> line, ref int i, Span<byte> output, ref int written)
    {
        while (i < line.Length)
        {
            byte c = line[i];
            if (c == (byte)'\\' && i + 1 < line.Length && line[i + 1] == (byte)'\'')
            {
                output[written++] = (byte)'\'';
                i += 2;
            }
            else if (c == (byte)'\'')
            {
                return ClosesArgument(line, ref i);
            }
            else
            {
                output[written++] = c;
                i++;
            }
        }

        return false;
    }

    // A closing quote ends the argument and must be followed by whitespace or the end of the line.
    private static bool ClosesArgument(ReadOnlySpan<byte> line, ref int i)
    {
        i++;
        return i == line.Length || IsSpace(line[i]);
    }

    // The characters C's isspace() accepts, which Redis skips between arguments.
    private static bool IsSpace(byte c) => c is (byte)' ' or (byte)'\t' or (byte)'\n' or (byte)'\r' or (byte)'\v' or (byte)'\f';

    private static bool IsHex(byte c) => char.IsAsciiHexDigit((char)c);

    private static int HexValue(byte c) => c <= (byte)'9' ? c - '0' : (c | 0x20) - 'a' + 10;
}
