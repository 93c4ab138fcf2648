using System.Buffers;
using Cubby.Client.Connections;

namespace Cubby.Silo.Cluster.Links;

/// <summary>
/// A peer's reply exactly as it came off the wire, in a pooled buffer, to be relayed to a client unchanged.
/// Dispose it once written.
/// </summary>
internal readonly struct RawReply : IDisposable
{
    /// <summary>Copies the whole reply out of the link's receive buffer.</summary>
    public static readonly ReplyParser<RawReply> Parser = static (reply, _) =>
    {
        var length = checked((int)reply.Length);
        var buffer = ArrayPool<byte>.Shared.Rent(length);
        reply.CopyTo(buffer);
        return new RawReply(buffer, length);
    };

    private readonly byte[]? _buffer;
    private readonly int _length;

    private RawReply(byte[] buffer, int length)
    {
        _buffer = buffer;
        _length = length;
    }

    /// <summary>The encoded reply.</summary>
    public ReadOnlySpan<byte> Span => _buffer.AsSpan(0, _length);

    /// <summary>Whether the reply is an error (<c>-...</c>).</summary>
    public bool IsError => _length > 0 && _buffer![0] == (byte)'-';

    public void Dispose()
    {
        if (_buffer is not null)
        {
            ArrayPool<byte>.Shared.Return(_buffer);
        }
    }
}
