namespace Cubby.Text;

/// <summary>
/// Redis's glob-style patterns for KEYS and SCAN MATCH: <c>*</c>, <c>?</c>, <c>[abc]</c>, <c>[^a]</c>, <c>[a-z]</c>
/// and <c>\</c> escapes, matched against raw key bytes.
/// </summary>
public static class GlobPattern
{
    /// <summary>Whether <paramref name="text"/> matches <paramref name="pattern"/>, byte by byte.</summary>
    /// <param name="pattern">The glob pattern.</param>
    /// <param name="text">The key to test.</param>
    public static bool IsMatch(ReadOnlySpan<byte> pattern, ReadOnlySpan<byte> text)
    {
        // Iterative with one backtrack point for the last '*', so hostile patterns cannot blow up exponentially.
        int p = 0, t = 0, starP = -1, starT = 0;
        while (t < text.Length)
        {
            if (p < pattern.Length && pattern[p] == '*')
            {
                starP = ++p;
                starT = t;
                continue;
            }

            if (p < pattern.Length && MatchOne(pattern, ref p, text[t]))
            {
                t++;
                continue;
            }

            if (starP < 0)
            {
                return false;
            }

            p = starP;
            t = ++starT;
        }

        while (p < pattern.Length && pattern[p] == '*')
        {
            p++;
        }

        return p == pattern.Length;
    }

    /// <summary>Matches one pattern element at <paramref name="p"/> against <paramref name="c"/>, advancing past it on success.</summary>
    private static bool MatchOne(ReadOnlySpan<byte> pattern, ref int p, byte c)
    {
        switch (pattern[p])
        {
            case (byte)'?':
                p++;
                return true;
            case (byte)'[':
                return MatchClass(pattern, ref p, c);
            case (byte)'\\' when p + 1 < pattern.Length:
                if (pattern[p + 1] != c)
                {
                    return false;
                }

                p += 2;
                return true;
            default:
                if (pattern[p] != c)
                {
                    return false;
                }

                p++;
                return true;
        }
    }

    private static bool MatchClass(ReadOnlySpan<byte> pattern, ref int p, byte c)
    {
        var i = p + 1;
        var negate = i < pattern.Length && pattern[i] == '^';
        if (negate)
        {
            i++;
        }

        var matched = false;
        while (i < pattern.Length && pattern[i] != ']')
        {
            if (pattern[i] == '\\' && i + 1 < pattern.Length)
            {
                matched |= pattern[i + 1] == c;
                i += 2;
            }
            else if (i + 2 < pattern.Length && pattern[i + 1] == '-' && pattern[i + 2] != ']')
            {
                var (low, high) = pattern[i] <= pattern[i + 2] ? (pattern[i], pattern[i + 2]) : (pattern[i + 2], pattern[i]);
                matched |= c >= low && c <= high;
                i += 3;
            }
            else
            {
                matched |= pattern[i] == c;
                i++;
            }
        }

        if (matched == negate)
        {
            return false;
        }

        // An unterminated class ends the pattern, as in Redis.
        p = i < pattern.Length ? i + 1 : i;
        return true;
    }
}
