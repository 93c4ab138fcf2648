using Cubby.Grains;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Commands;

/// <summary>What every writing command does: make room in the memory budget, write, report out-of-memory.</summary>
internal static class Writes
{
    /// <summary>Checks the key, makes room and writes; returns null after writing an error reply.</summary>
    public static SetStatus? Set(ClientSession session, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, in SetRequest request)
    {
        if (!session.CheckKey(key) || !EnsureRoom(session, key.Length, value.Length))
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

    public static bool EnsureRoom(ClientSession session, int keyLength, int valueLength) =>
        EnsureRoom(session, session.Silo.Catalog.EstimateSize(keyLength, valueLength));

    /// <summary>Evicts until <paramref name="bytes"/> fit; writes the OOM error and returns false when they cannot.</summary>
    public static bool EnsureRoom(ClientSession session, long bytes)
    {
        var silo = session.Silo;
        if (silo.Catalog.Budget.Available >= bytes || silo.Evictor.MakeRoom(bytes))
        {
            return true;
        }

        session.Writer.WriteError(ErrorText.OutOfMemory);
        return false;
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
