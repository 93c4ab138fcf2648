using Cubby.Grains;
using Cubby.Grains.Hashes;
using Cubby.Grains.Storage;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Text;

namespace Cubby.Grains.Commands;

/// <summary>
/// OBJECT ENCODING | REFCOUNT | IDLETIME | FREQ | HELP: what Redis would report about a key's value. The encodings are
/// the ones Redis 7 would pick for the value (Cubby stores every value one way), so tools that read them keep working.
/// </summary>
internal static class ObjectCommand
{
    public const string NoLfu = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Cubby evicts by approximate LRU (OBJECT IDLETIME).";

    // Redis's thresholds: embedded strings up to 44 bytes; listpack hashes up to 128 fields of up to 64 bytes.
    private const int EmbeddedStringBytes = 44;
    private const int IntegerStringBytes = 20;
    private const int ListpackEntries = 128;
    private const int ListpackValueBytes = 64;

    private static readonly string[] Help =
    [
        "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "ENCODING <key>",
        "    Return the kind of internal representation Redis would use to store the value of <key>.",
        "FREQ <key>",
        "    Not tracked: Cubby evicts by approximate LRU, not LFU.",
        "IDLETIME <key>",
        "    Return the idle time of <key>, in seconds since it was last read or written.",
        "REFCOUNT <key>",
        "    Return the number of references of the value of <key>: always 1.",
        "HELP",
        "    Print this help.",
    ];

    public static void Object(CommandContext context, RespRequest request)
    {
        var subcommand = request[1];
        var writer = context.Writer;
        if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "help"))
        {
            writer.WriteSimpleStringArray(Help);
            return;
        }

        if (!AsciiIgnoreCaseComparer.IsKeyword(subcommand, "encoding") && !AsciiIgnoreCaseComparer.IsKeyword(subcommand, "refcount") && !AsciiIgnoreCaseComparer.IsKeyword(subcommand, "idletime") && !AsciiIgnoreCaseComparer.IsKeyword(subcommand, "freq"))
        {
            writer.WriteError(RedisErrors.UnknownSubcommand(subcommand, "OBJECT"));
            return;
        }

        if (request.Count != 3)
        {
            writer.WriteError(RedisErrors.WrongArity("object|" + Arguments.Utf8(subcommand).ToLowerInvariant()));
            return;
        }

        var key = request[2];
        var inspection = default(Inspection);
        if (!context.CheckKey(key))
        {
            return;
        }

        if (!context.Shard.Peek(key, ref inspection))
        {
            writer.WriteNull();
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "encoding"))
        {
            writer.WriteBulkString(inspection.Encoding);
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "refcount"))
        {
            writer.WriteInteger(1);
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "idletime"))
        {
            writer.WriteInteger(inspection.IdleSeconds);
        }
        else
        {
            writer.WriteError(NoLfu);
        }
    }

    /// <summary>Reads the encoding Redis would give the value, and how long the entry has been idle.</summary>
    private struct Inspection : IEntryReader
    {
        public string Encoding { get; private set; }

        public long IdleSeconds { get; private set; }

        public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
        {
            IdleSeconds = Math.Max(0, EntryMetadata.Clock(now) - (long)metadata.LastAccess);
            Encoding = metadata.Kind == EntryKind.Hash ? HashEncoding(value) : StringEncoding(value);
        }

        private static string StringEncoding(ReadOnlySpan<byte> value) =>
            value.Length <= IntegerStringBytes && RedisNumber.TryParseInt64(value, out _) ? "int"
            : value.Length <= EmbeddedStringBytes ? "embstr"
            : "raw";

        private static string HashEncoding(ReadOnlySpan<byte> value)
        {
            var fields = new HashFields(value);
            if (fields.Count > ListpackEntries)
            {
                return "hashtable";
            }

            foreach (var entry in fields)
            {
                if (entry.Field.Length > ListpackValueBytes || entry.Value.Length > ListpackValueBytes)
                {
                    return "hashtable";
                }
            }

            return "listpack";
        }
    }
}
