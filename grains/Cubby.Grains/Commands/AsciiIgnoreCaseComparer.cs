using System.Text;

namespace Cubby.Grains.Commands;

/// <summary>Matches command names case-insensitively straight from the request bytes, without allocating.</summary>
internal sealed class AsciiIgnoreCaseComparer : IEqualityComparer<string>, IAlternateEqualityComparer<ReadOnlySpan<byte>, string>
{
    public static AsciiIgnoreCaseComparer Instance { get; } = new();

    public bool Equals(string? x, string? y) => string.Equals(x, y, StringComparison.OrdinalIgnoreCase);

    public int GetHashCode(string obj)
    {
        var hash = new HashCode();
        foreach (var c in obj)
        {
            hash.Add(char.ToUpperInvariant(c));
        }

        return hash.ToHashCode();
    }

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

    public int GetHashCode(ReadOnlySpan<byte> alternate)
    {
        var hash = new HashCode();
        foreach (var b in alternate)
        {
            hash.Add(char.ToUpperInvariant((char)b));
        }

        return hash.ToHashCode();
    }

    public string Create(ReadOnlySpan<byte> alternate) => Encoding.ASCII.GetString(alternate);
}
