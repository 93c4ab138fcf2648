using Cubby.Resp;
using Cubby.Silo.Commands;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Cluster.Handoff;

/// <summary><c>CUBBY.HANDOFF</c>: the receiving side of <see cref="HandoffProtocol"/>.</summary>
internal static class HandoffCommands
{
    public static void Handoff(ClientSession session, RespRequest request)
    {
        var receiver = session.Silo.Incoming;
        var step = request[1];
        if (Arguments.Is(step, "EMPTY"))
        {
            for (var i = 2; i < request.Count; i++)
            {
                if (!TrySlot(session, request, i, out var empty))
                {
                    return;
                }

                receiver.Empty(empty);
            }

            session.Writer.WriteOk();
            return;
        }

        if (!TrySlot(session, request, 2, out var slot) || request.Count != 4)
        {
            session.Writer.WriteError(ErrorText.Syntax);
            return;
        }

        var done = Arguments.Is(step, "BEGIN") ? Begin(receiver, slot)
            : Arguments.Is(step, "CHUNK") ? receiver.Chunk(slot, request[3])
            : Arguments.Is(step, "END") && receiver.End(slot);
        if (done)
        {
            session.Writer.WriteOk();
        }
        else
        {
            session.Writer.WriteError($"ERR handoff of slot {slot}: {ErrorText.Printable(step)} out of order (no BEGIN)");
        }
    }

    private static bool Begin(HandoffReceiver receiver, int slot)
    {
        receiver.Begin(slot);
        return true;
    }

    private static bool TrySlot(ClientSession session, RespRequest request, int index, out int slot)
    {
        slot = -1;
        if (index < request.Count && request.TryGetInt64(index, out var value) && value >= 0 && value < session.Silo.Catalog.SlotCount)
        {
            slot = (int)value;
            return true;
        }

        session.Writer.WriteError($"ERR handoff: invalid slot (0 to {session.Silo.Catalog.SlotCount - 1})");
        return false;
    }
}
