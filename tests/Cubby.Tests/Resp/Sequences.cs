using System.Buffers;
using System.Text;

namespace Cubby.Tests.Resp;

internal static class Sequences
{
    /// <summary>Latin-1, so each char of the test text is exactly one byte (binary data included).</summary>
    public static byte[] Bytes(string text) => Encoding.Latin1.GetBytes(text);

    public static ReadOnlySequence<byte> Single(string text) => new(Bytes(text));

    /// <summary>The data in segments that end at each of the given offsets (empty segments allowed).</summary>
    public static ReadOnlySequence<byte> Split(byte[] data, params int[] cuts)
    {
        var pieces = new List<ReadOnlyMemory<byte>>();
        int start = 0;
        foreach (int cut in cuts)
        {
            pieces.Add(data.AsMemory(start, cut - start));
            start = cut;
        }

        pieces.Add(data.AsMemory(start));
        return FromPieces(pieces);
    }

    /// <summary>One segment per byte.</summary>
    public static ReadOnlySequence<byte> PerByte(byte[] data) =>
        FromPieces(Enumerable.Range(0, data.Length).Select(i => (ReadOnlyMemory<byte>)data.AsMemory(i, 1)).ToList());

    public static ReadOnlySequence<byte> FromPieces(IReadOnlyList<ReadOnlyMemory<byte>> pieces)
    {
        if (pieces.Count == 0)
        {
            return ReadOnlySequence<byte>.Empty;
        }

        // Copy each piece into its own array so a parser reading past a segment's end would be caught.
        var first = new TestSegment(pieces[0].ToArray(), null);
        TestSegment last = first;
        for (int i = 1; i < pieces.Count; i++)
        {
            last = new TestSegment(pieces[i].ToArray(), last);
        }

        return new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);
    }
}
