using Cubby.Grains;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Commands;

/// <summary>What writing commands share: check the key, write (the shard evicts to make room), report out-of-memory.</summary>
internal static class Writes
{
    /// <summary>Checks the key and writes; returns null after writing an error reply.</summary>
    public static SetStatus? Set(ClientSession session, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, in SetRequest request)
    {
        if (!session.CheckKey(key))
        {
            return null;
        }

        var none = default(NoReader);
        var status = session.Silo.Catalog.GrainFor(key).Set(key, value, request, ref none);
        if (status == SetStatus.OutOfMemory)
        {
            session.Writer.WriteError(ErrorText.OutOfMemory);
            return null;
        }

        return status;
    }

    /// <summary>The reply of APPEND and SETRANGE: the new length, or the error the grain reported.</summary>
    public static void ReplyLength(ClientSession session, UpdateStatus status, long length)
    {
        switch (status)
        {
            case UpdateStatus.Ok:
                session.Writer.WriteInteger(length);
                break;
            case UpdateStatus.TooLarge:
                session.Writer.WriteError(ErrorText.ValueTooLarge(session.Silo.Options.MaxValueBytes));
                break;
            default:
                session.Writer.WriteError(ErrorText.OutOfMemory);
                break;
        }
    }
}
