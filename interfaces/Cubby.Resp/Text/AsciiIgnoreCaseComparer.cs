using System.Text;

namespace Cubby.Text;

/// <summary>Matches command names and keywords case-insensitively (ASCII) straight from the request bytes, without allocating.</summary>
public sealed class AsciiIgnoreCaseComparer : IEqualityComparer<string>, IAlternateEqualityComparer<ReadOnlySpan<byte>, string>
{
    private AsciiIgnoreCaseComparer()
    {
    }

    /// <summary>The comparer.</summary>
    public static AsciiIgnoreCaseComparer Instance { get; } = new();

    /// <summary>Whether <paramref name="argument"/> is the ASCII keyword <paramref name="keyword"/>, ignoring case.</summary>
    /// <param name="argument">A request's argument.</param>
    /// <param name="keyword">The keyword, ASCII.</param>
    /// <returns>Whether they are the same word.</returns>
    public static bool IsKeyword(ReadOnlySpan<byte> argument, string keyword)
    {
        ArgumentNullException.ThrowIfNull(keyword);
        if (argument.Length != keyword.Length)
        {
            return false;
        }

        for (var i = 0; i < argument.Length; i++)
        {
            if ((argument[i] | 0x20) != (keyword[i] | 0x20))
            {
                return false;
            }
        }

        return true;
    }

    /// <inheritdoc/>
    public bool Equals(string? x, string? y) => string.Equals(x, y, StringComparison.OrdinalIgnoreCase);

    /// <inheritdoc/>
    public int GetHashCode(string obj)
    {
        var hash = new HashCode();
        foreach (var c in obj)
        {
            hash.Add(char.ToUpperInvariant(c));
        }

        return hash.ToHashCode();
    }

    /// <inheritdoc/>
    public bool Equals(ReadOnlySpan<byte> alternate, string other)
    {
        if (alternate.Length != other.Length)
        {
            return false;
        }

        for (var i = 0; i < alternate.Length; i++)
        {
            if (char.ToUpperInvariant((char)alternate[i]) != char.ToUpperInvariant(other[i]))
            {
                return false;
            }
        }

        return true;
    }

    /// <inheritdoc/>
    public int GetHashCode(ReadOnlySpan<byte> alternate)
    {
        var hash = new HashCode();
        foreach (var b in alternate)
        {
            hash.Add(char.ToUpperInvariant((char)b));
        }

        return hash.ToHashCode();
    }

    /// <inheritdoc/>
    public string Create(ReadOnlySpan<byte> alternate) => Encoding.ASCII.GetString(alternate);
}
