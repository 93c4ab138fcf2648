using Cubby.Resp;

namespace Cubby.Grains.Commands.TwoKeys;

/// <summary>
/// RENAME, RENAMENX and COPY: an entry moves or is copied whole, type, flags and expiry included, atomically even when
/// its two keys are in shards of different silos (<see cref="TwoKeyRunner"/>).
/// </summary>
internal static class CopyCommands
{
    public static TwoKeyWork? Rename(CommandContext context, RespRequest request) => Plan(context, request, CopyMode.Rename);

    public static TwoKeyWork? RenameNx(CommandContext context, RespRequest request) => Plan(context, request, CopyMode.RenameIfAbsent);

    public static TwoKeyWork? Copy(CommandContext context, RespRequest request) => Plan(context, request, CopyMode.Copy);

    private static CopyWork? Plan(CommandContext context, RespRequest request, CopyMode mode) =>
        CopySpec.TryParse(context, request, mode, out var spec) ? new CopyWork(spec) : null;

    private sealed class CopyWork(CopySpec spec) : TwoKeyWork(spec.Source, spec.Destination)
    {
        private CopyOutcome _outcome;

        public override async ValueTask RunAsync(IEntryShards shards)
        {
            _outcome = await CopyAsync(shards).ConfigureAwait(false);
        }

        public override void WriteReply(CommandContext context)
        {
            var writer = context.Writer;
            switch (spec.Mode, _outcome)
            {
                case (not CopyMode.Copy, CopyOutcome.NoSource):
                    writer.WriteError(ErrorText.NoSuchKey);
                    break;
                case (CopyMode.Rename, _):
                    writer.WriteOk();
                    break;
                default:
                    writer.WriteInteger(_outcome == CopyOutcome.Done ? 1 : 0);
                    break;
            }
        }

        private async ValueTask<CopyOutcome> CopyAsync(IEntryShards shards)
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
    }

    private enum CopyOutcome
    {
        Done,
        NoSource,
        SameKey,
        DestinationExists,
    }
}
