using System.Buffers;
using Cubby.Resp;

namespace Cubby.Client.Connections;

/// <summary>
/// A per-thread scratch buffer a command is encoded into before it is copied into a connection's outgoing batch,
/// so encoding happens outside the connection's lock and allocates nothing.
/// </summary>
internal static class CommandBuffer
{
    [ThreadStatic]
    private static RespWriter? t_writer;

    [ThreadStatic]
    private static ArrayBufferWriter<byte>? t_buffer;

    /// <summary>An empty writer for a new command; valid until the next <see cref="Start"/> on this thread.</summary>
    public static RespWriter Start()
    {
        var buffer = t_buffer ??= new ArrayBufferWriter<byte>(1024);
        if (buffer.Capacity > 1024 * 1024)
        {
            // One huge value must not pin a huge buffer to the thread forever.
            buffer = t_buffer = new ArrayBufferWriter<byte>(1024);
            t_writer = null;
        }

        buffer.ResetWrittenCount();
        return t_writer ??= new RespWriter(buffer);
    }

    /// <summary>The bytes written since <see cref="Start"/>.</summary>
    public static ReadOnlySpan<byte> Written => t_buffer!.WrittenSpan;
}
