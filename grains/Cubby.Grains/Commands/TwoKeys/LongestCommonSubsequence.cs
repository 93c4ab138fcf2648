using System.Buffers;
using Cubby.Resp;

namespace Cubby.Grains.Commands.TwoKeys;

/// <summary>
/// The longest common subsequence of two strings by dynamic programming over a table of prefix lengths, and the reply
/// forms LCS gives of it: the string, its length, or the matching ranges (newest first, as Redis lists them).
/// </summary>
internal static class LongestCommonSubsequence
{
    /// <summary>The transient memory the table takes for strings of these lengths.</summary>
    public static long TableBytes(int firstLength, int secondLength) => (firstLength + 1L) * (secondLength + 1L) * sizeof(int);

    public static void WriteReply(RespWriter writer, ReadOnlySpan<byte> a, ReadOnlySpan<byte> b, LcsOptions options)
    {
        var width = b.Length + 1;
        var table = ArrayPool<int>.Shared.Rent((a.Length + 1) * width);
        try
        {
            Fill(table, a, b);
            var length = table[a.Length * width + b.Length];
            if (options.Length)
            {
                writer.WriteInteger(length);
                return;
            }

            var common = new byte[length];
            var ranges = new List<MatchRange>();
            Trace(table, a, b, common, ranges, options.MinMatchLength);
            if (!options.Indexes)
            {
                writer.WriteBulkString(common);
                return;
            }

            writer.WriteMapHeader(2);
            writer.WriteBulkString("matches");
            writer.WriteArrayHeader(ranges.Count);
            foreach (var range in ranges)
            {
                writer.WriteArrayHeader(options.WithMatchLength ? 3 : 2);
                WritePair(writer, range.FirstStart, range.FirstEnd);
                WritePair(writer, range.SecondStart, range.SecondEnd);
                if (options.WithMatchLength)
                {
                    writer.WriteInteger(range.Length);
                }
            }

            writer.WriteBulkString("len");
            writer.WriteInteger(length);
        }
        finally
        {
            ArrayPool<int>.Shared.Return(table);
        }
    }

    /// <summary>table[i * (|b| + 1) + j] = the LCS length of a[..i] and b[..j].</summary>
    private static void Fill(int[] table, ReadOnlySpan<byte> a, ReadOnlySpan<byte> b)
    {
        var width = b.Length + 1;
        table.AsSpan(0, width).Clear();
        for (var i = 1; i <= a.Length; i++)
        {
            var row = i * width;
            var above = row - width;
            table[row] = 0;
            for (var j = 1; j <= b.Length; j++)
            {
                table[row + j] = a[i - 1] == b[j - 1]
                    ? table[above + j - 1] + 1
                    : Math.Max(table[above + j], table[row + j - 1]);
            }
        }
    }

    /// <summary>
    /// Walks back from the table's corner, writing the common bytes into <paramref name="common"/> from its end and
    /// collecting each run of consecutive matches as a range once it ends.
    /// </summary>
    private static void Trace(int[] table, ReadOnlySpan<byte> a, ReadOnlySpan<byte> b, byte[] common, List<MatchRange> ranges, long minMatchLength)
    {
        var width = b.Length + 1;
        int i = a.Length, j = b.Length, next = common.Length;
        MatchRange? run = null;
        while (i > 0 && j > 0)
        {
            var ended = false;
            if (a[i - 1] == b[j - 1])
            {
                common[--next] = a[i - 1];
                run = run is { } current ? current with { FirstStart = i - 1, SecondStart = j - 1 } : new MatchRange(i - 1, i - 1, j - 1, j - 1);
                ended = i == 1 || j == 1;
                i--;
                j--;
            }
            else
            {
                if (table[(i - 1) * width + j] > table[i * width + j - 1])
                {
                    i--;
                }
                else
                {
                    j--;
                }

                ended = run is not null;
            }

            if (ended)
            {
                if (run!.Value.Length >= minMatchLength)
                {
                    ranges.Add(run.Value);
                }

                run = null;
            }
        }
    }

    private static void WritePair(RespWriter writer, int start, int end)
    {
        writer.WriteArrayHeader(2);
        writer.WriteInteger(start);
        writer.WriteInteger(end);
    }

    /// <summary>A run of consecutive matches: where it is in each string (inclusive).</summary>
    private readonly record struct MatchRange(int FirstStart, int FirstEnd, int SecondStart, int SecondEnd)
    {
        public int Length => FirstEnd - FirstStart + 1;
    }
}
