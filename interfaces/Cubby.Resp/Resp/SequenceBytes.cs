using System.Buffers;

namespace Cubby.Resp;

/// <summary>Reads single bytes out of a sequence, whatever its segments (empty ones included) look like.</summary>
internal static class SequenceBytes
{
    /// <summary>The byte at <paramref name="offset"/>, which must be within the sequence.</summary>
    public static byte At(in ReadOnlySequence<byte> sequence, long offset)
    {
        var reader = new SequenceReader<byte>(sequence);
        reader.TryPeek(offset, out byte value);
        return value;
    }
}
