using Cubby.Resp;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Commands.TwoKeys;

/// <summary>
/// RENAME, RENAMENX and COPY: an entry moves or is copied whole, type, flags and expiry included, atomically even when
/// its two keys are in shards of different silos (<see cref="TwoKeyRunner"/>).
/// </summary>
internal static class CopyCommands
{
    public static void Rename(ClientSession session, RespRequest request) => RunHere(session, request, CopyMode.Rename);

    public static void RenameNx(ClientSession session, RespRequest request) => RunHere(session, request, CopyMode.RenameIfAbsent);

    public static void Copy(ClientSession session, RespRequest request) => RunHere(session, request, CopyMode.Copy);

    public static ValueTask RenameHeld(ClientSession session, RespRequest request) => RunHeld(session, request, CopyMode.Rename);

    public static ValueTask RenameNxHeld(ClientSession session, RespRequest request) => RunHeld(session, request, CopyMode.RenameIfAbsent);

    public static ValueTask CopyHeld(ClientSession session, RespRequest request) => RunHeld(session, request, CopyMode.Copy);

    private static void RunHere(ClientSession session, RespRequest request, CopyMode mode)
    {
        if (CopySpec.TryParse(session, request, mode, out var spec))
        {
            TwoKeyRunner.RunHere(session, shards => RunAsync(shards, spec), (session, outcome) => WriteReply(session, spec, outcome));
        }
    }

    private static ValueTask RunHeld(ClientSession session, RespRequest request, CopyMode mode) =>
        CopySpec.TryParse(session, request, mode, out var spec)
            ? TwoKeyRunner.RunHeldAsync(session, spec.Source, spec.Destination, shards => RunAsync(shards, spec), (session, outcome) => WriteReply(session, spec, outcome))
            : ValueTask.CompletedTask;

    private static async ValueTask<CopyOutcome> RunAsync(IEntryShards shards, CopySpec spec)
    {
        if (await shards.ExportAsync(spec.Source).ConfigureAwait(false) is not { } entry)
        {
            return CopyOutcome.NoSource;
        }

        if (spec.SameKey)
        {
            return CopyOutcome.SameKey;
        }

        if (!await shards.ImportAsync(spec.Destination, entry, spec.Replace).ConfigureAwait(false))
        {
            return CopyOutcome.DestinationExists;
        }

        if (spec.Mode != CopyMode.Copy)
        {
            await shards.RemoveAsync(spec.Source).ConfigureAwait(false);
        }

        return CopyOutcome.Done;
    }

    private static void WriteReply(ClientSession session, CopySpec spec, CopyOutcome outcome)
    {
        var writer = session.Writer;
        switch (spec.Mode, outcome)
        {
            case (not CopyMode.Copy, CopyOutcome.NoSource):
                writer.WriteError(ErrorText.NoSuchKey);
                break;
            case (CopyMode.Rename, _):
                writer.WriteOk();
                break;
            default:
                writer.WriteInteger(outcome == CopyOutcome.Done ? 1 : 0);
                break;
        }
    }

    private enum CopyOutcome
    {
        Done,
        NoSource,
        SameKey,
        DestinationExists,
    }
}
