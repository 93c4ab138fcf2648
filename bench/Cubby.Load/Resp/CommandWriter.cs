using System.Buffers.Text;
using System.Text;

namespace Cubby.Load.Resp;

/// <summary>Encodes one command as a RESP array of bulk strings into a buffer it reuses; one per caller.</summary>
internal sealed class CommandWriter
{
    private byte[] _buffer = new byte[2048];
    private int _length;

    public ReadOnlySpan<byte> Written => _buffer.AsSpan(0, _length);

    public CommandWriter Start(int arguments)
    {
        _length = 0;
        Header((byte)'*', arguments);
        return this;
    }

    public CommandWriter Bulk(ReadOnlySpan<byte> value)
    {
        Header((byte)'$', value.Length);
        Append(value);
        Append("\r\n"u8);
        return this;
    }

    public CommandWriter Bulk(string value) => Bulk(Encoding.UTF8.GetBytes(value));

    public CommandWriter Bulk(long value)
    {
        Span<byte> digits = stackalloc byte[20];
        Utf8Formatter.TryFormat(value, digits, out var written);
        return Bulk(digits[..written]);
    }

    /// <summary>A whole command from text arguments (for control calls such as PING and INFO).</summary>
    public static byte[] Encode(params string[] arguments)
    {
        var writer = new CommandWriter().Start(arguments.Length);
        foreach (var argument in arguments)
        {
            writer.Bulk(argument);
        }

        return writer.Written.ToArray();
    }

    private void Header(byte type, long count)
    {
        Span<byte> digits = stackalloc byte[20];
        Utf8Formatter.TryFormat(count, digits, out var written);
        Append([type]);
        Append(digits[..written]);
        Append("\r\n"u8);
    }

    private void Append(ReadOnlySpan<byte> bytes)
    {
        if (_length + bytes.Length > _buffer.Length)
        {
            Array.Resize(ref _buffer, Math.Max(_buffer.Length * 2, _length + bytes.Length));
        }

        bytes.CopyTo(_buffer.AsSpan(_length));
        _length += bytes.Length;
    }
}
