using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Text;

namespace Cubby.Grains.Commands.TwoKeys;

/// <summary>LCS's options: the length alone, or the matching ranges (with their lengths, from a minimum length).</summary>
internal readonly record struct LcsOptions(bool Length, bool Indexes, bool WithMatchLength, long MinMatchLength);

/// <summary>LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN], reading both strings in one atomic step.</summary>
internal static class LcsCommand
{
    public const string NotStrings = "ERR The specified keys must contain string values";
    public const string LengthAndIndexes = "ERR If you want both the length and indexes, please just use IDX.";

    public static TwoKeyWork Plan(CommandContext context, RespRequest request)
    {
        var (first, second, options, error) = Parse(request);
        return new LcsWork(first, second, options, error);
    }

    /// <summary>The keys and options; an option error is kept to answer after the type check, in Redis's order.</summary>
    private static (byte[] First, byte[] Second, LcsOptions Options, string? Error) Parse(RespRequest request)
    {
        var options = default(LcsOptions);
        string? error = null;
        for (var i = 3; i < request.Count && error is null; i++)
        {
            if (AsciiIgnoreCaseComparer.IsKeyword(request[i], "idx"))
            {
                options = options with { Indexes = true };
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(request[i], "len"))
            {
                options = options with { Length = true };
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(request[i], "withmatchlen"))
            {
                options = options with { WithMatchLength = true };
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(request[i], "minmatchlen") && i + 1 < request.Count)
            {
                if (RedisNumber.TryParseInt64(request[++i], out var minimum))
                {
                    options = options with { MinMatchLength = Math.Max(0, minimum) };
                }
                else
                {
                    error = ErrorText.NotInteger;
                }
            }
            else
            {
                error = RedisErrors.Syntax;
            }
        }

        if (error is null && options.Length && options.Indexes)
        {
            error = LengthAndIndexes;
        }

        return (request[1].ToArray(), request[2].ToArray(), options, error);
    }

    private sealed class LcsWork(byte[] first, byte[] second, LcsOptions options, string? error) : TwoKeyWork(first, second)
    {
        private (ShardEntryCopy? First, ShardEntryCopy? Second) _values;

        public override async ValueTask RunAsync(IEntryShards shards) =>
            _values = (await shards.ExportAsync(First).ConfigureAwait(false), await shards.ExportAsync(Second).ConfigureAwait(false));

        public override void WriteReply(CommandContext context) => LcsCommand.WriteReply(context, _values, options, error);
    }

    private static void WriteReply(CommandContext context, (ShardEntryCopy? First, ShardEntryCopy? Second) values, LcsOptions options, string? error)
    {
        var writer = context.Writer;
        if (values.First is { Kind: not EntryKind.String } || values.Second is { Kind: not EntryKind.String })
        {
            writer.WriteError(NotStrings);
            return;
        }

        var a = values.First?.Value ?? [];
        var b = values.Second?.Value ?? [];
        var limit = context.MaxValueBytes;
        if (error is null && LongestCommonSubsequence.TableBytes(a.Length, b.Length) > limit)
        {
            error = $"ERR Insufficient memory, transient memory for LCS exceeds {limit} bytes (Cubby:MaxValueBytes)";
        }

        if (error is not null)
        {
            writer.WriteError(error);
            return;
        }

        LongestCommonSubsequence.WriteReply(writer, a, b, options);
    }
}
