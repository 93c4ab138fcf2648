using Cubby.Resp;
using Cubby.Text;

namespace Cubby.Grains.Commands.TwoKeys;

internal enum CopyMode
{
    Rename,
    RenameIfAbsent,
    Copy,
}

/// <summary>What a RENAME, RENAMENX or COPY asks for, its keys copied out of the request (which the connection reuses).</summary>
internal sealed record CopySpec(CopyMode Mode, byte[] Source, byte[] Destination, bool Replace)
{
    public bool SameKey => Source.AsSpan().SequenceEqual(Destination);

    /// <summary>Reads the command's arguments; on a bad one writes Redis's error and answers false.</summary>
    public static bool TryParse(CommandContext context, RespRequest request, CopyMode mode, out CopySpec spec)
    {
        spec = new CopySpec(mode, request[1].ToArray(), request[2].ToArray(), Replace: mode == CopyMode.Rename);
        if (mode != CopyMode.Copy)
        {
            return true;
        }

        for (var i = 3; i < request.Count; i++)
        {
            if (AsciiIgnoreCaseComparer.IsKeyword(request[i], "replace"))
            {
                spec = spec with { Replace = true };
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(request[i], "db") && i + 1 < request.Count)
            {
                if (!Arguments.TryInt64(context, request[++i], out var db))
                {
                    return false;
                }

                if (db != 0)
                {
                    // One keyspace, as SELECT says: database 0 only.
                    context.Writer.WriteError(RedisErrors.DbIndexOutOfRange);
                    return false;
                }
            }
            else
            {
                context.Writer.WriteError(RedisErrors.Syntax);
                return false;
            }
        }

        if (spec.SameKey)
        {
            context.Writer.WriteError(ErrorText.SameObject);
            return false;
        }

        return true;
    }
}
