using System.Globalization;
using Cubby.Resp;
using Cubby.Client.Connections;

namespace Cubby.Silo.Cluster.Handoff;

/// <summary>
/// The handoff commands, old owner to new: <c>CUBBY.HANDOFF BEGIN slot view-version</c>, <c>CHUNK slot entries</c> (any
/// number), <c>END slot entry-count</c>; and <c>EMPTY slot...</c> for slots with nothing to move. Each is answered +OK
/// once done, so the old owner drops a slot only after the new owner has it.
/// </summary>
internal static class HandoffProtocol
{
    public static ReadOnlyMemory<byte> Begin(int slot, long viewVersion) => Encode("BEGIN"u8, slot, writer => writer.WriteBulkString(Number(viewVersion)));

    public static ReadOnlyMemory<byte> Chunk(int slot, ReadOnlySpan<byte> entries)
    {
        var writer = Start(3, "CHUNK"u8, slot);
        writer.WriteBulkString(entries);
        return CommandBuffer.Written.ToArray();
    }

    public static ReadOnlyMemory<byte> End(int slot, long entries) => Encode("END"u8, slot, writer => writer.WriteBulkString(Number(entries)));

    public static ReadOnlyMemory<byte> Empty(IReadOnlyList<int> slots)
    {
        var writer = CommandBuffer.Start();
        writer.WriteArrayHeader(2 + slots.Count);
        writer.WriteBulkString("CUBBY.HANDOFF"u8);
        writer.WriteBulkString("EMPTY"u8);
        foreach (var slot in slots)
        {
            writer.WriteBulkString(Number(slot));
        }

        return CommandBuffer.Written.ToArray();
    }

    private static ReadOnlyMemory<byte> Encode(ReadOnlySpan<byte> step, int slot, Action<RespWriter> last)
    {
        var writer = Start(3, step, slot);
        last(writer);
        return CommandBuffer.Written.ToArray();
    }

    private static RespWriter Start(int arguments, ReadOnlySpan<byte> step, int slot)
    {
        var writer = CommandBuffer.Start();
        writer.WriteArrayHeader(arguments + 1);
        writer.WriteBulkString("CUBBY.HANDOFF"u8);
        writer.WriteBulkString(step);
        writer.WriteBulkString(Number(slot));
        return writer;
    }

    private static string Number(long value) => value.ToString(CultureInfo.InvariantCulture);
}
