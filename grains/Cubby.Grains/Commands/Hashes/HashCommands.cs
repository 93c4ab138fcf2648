using Cubby.Grains;
using Cubby.Resp;
using Cubby.Text;

namespace Cubby.Grains.Commands.Hashes;

/// <summary>
/// The hash commands, with Redis 7's replies and errors. Each runs in its shard's turn: reads give the stored encoding
/// to a reply writer, writes rewrite it through an <see cref="Grains.Hashes.IHashEdit"/>.
/// </summary>
internal static class HashCommands
{
    /// <summary>The most picks a negative HRANDFIELD count may ask for: each is a reply element built in memory.</summary>
    private const long MaxRepeatedPicks = 1_000_000;

    public static void HSet(CommandContext context, RespRequest request)
    {
        if (CheckPairs(context, request, "hset") && Edit(context, request, new SetFields(request, onlyIfAbsent: false)) is { } edit)
        {
            context.Writer.WriteInteger(edit.Added);
        }
    }

    public static void HMSet(CommandContext context, RespRequest request)
    {
        if (CheckPairs(context, request, "hmset") && Edit(context, request, new SetFields(request, onlyIfAbsent: false)) is not null)
        {
            context.Writer.WriteOk();
        }
    }

    public static void HSetNx(CommandContext context, RespRequest request)
    {
        if (context.CheckKey(request[1]) && Edit(context, request, new SetFields(request, onlyIfAbsent: true)) is { } edit)
        {
            context.Writer.WriteInteger(edit.Added);
        }
    }

    public static void HDel(CommandContext context, RespRequest request)
    {
        if (context.CheckKey(request[1]) && Edit(context, request, new DeleteFields(request)) is { } edit)
        {
            context.Writer.WriteInteger(edit.Removed);
        }
    }

    public static void HIncrBy(CommandContext context, RespRequest request)
    {
        if (!context.CheckKey(request[1]) || !Arguments.TryInt64(context, request[3], out var delta))
        {
            return;
        }

        Span<byte> text = stackalloc byte[RedisNumber.MaxDoubleLength];
        var edit = new IncrementField(request, delta, 0, isFloat: false, text);
        if (Increment(context, request, ref edit))
        {
            context.Writer.WriteInteger(edit.Result);
        }
    }

    public static void HIncrByFloat(CommandContext context, RespRequest request)
    {
        if (!context.CheckKey(request[1]) || !Arguments.TryDouble(context, request[3], out var delta))
        {
            return;
        }

        Span<byte> text = stackalloc byte[RedisNumber.MaxDoubleLength];
        var edit = new IncrementField(request, 0, delta, isFloat: true, text);
        if (Increment(context, request, ref edit))
        {
            context.Writer.WriteBulkString(text[..edit.TextLength]);
        }
    }

    public static void HGet(CommandContext context, RespRequest request)
    {
        var reply = new FieldReply(context.Writer, request);
        if (Read(context, request, ref reply))
        {
            context.Writer.WriteNull();
        }
    }

    public static void HMGet(CommandContext context, RespRequest request)
    {
        var reply = new FieldsReply(context.Writer, request);
        if (Read(context, request, ref reply))
        {
            context.Writer.WriteArrayHeader(request.Count - 2);
            for (var i = 2; i < request.Count; i++)
            {
                context.Writer.WriteNull();
            }
        }
    }

    public static void HGetAll(CommandContext context, RespRequest request) => All(context, request, FieldParts.Both);

    public static void HKeys(CommandContext context, RespRequest request) => All(context, request, FieldParts.Names);

    public static void HVals(CommandContext context, RespRequest request) => All(context, request, FieldParts.Values);

    public static void HLen(CommandContext context, RespRequest request) => Number(context, request, HashNumber.Length);

    public static void HExists(CommandContext context, RespRequest request) => Number(context, request, HashNumber.Exists);

    public static void HStrLen(CommandContext context, RespRequest request) => Number(context, request, HashNumber.FieldLength);

    /// <summary>HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES].</summary>
    public static void HScan(CommandContext context, RespRequest request)
    {
        if (!context.CheckKey(request[1]))
        {
            return;
        }

        if (!Arguments.TryCursor(request[2], out _))
        {
            context.Writer.WriteError(RedisErrors.InvalidCursor);
            return;
        }

        var pattern = ReadOnlySpan<byte>.Empty;
        var matchAll = true;
        var noValues = false;
        for (var i = 3; i < request.Count; i++)
        {
            var option = request[i];
            if (AsciiIgnoreCaseComparer.IsKeyword(option, "NOVALUES"))
            {
                noValues = true;
            }
            else if (i + 1 < request.Count && AsciiIgnoreCaseComparer.IsKeyword(option, "MATCH"))
            {
                pattern = request[++i];
                matchAll = false;
            }
            else if (i + 1 < request.Count && AsciiIgnoreCaseComparer.IsKeyword(option, "COUNT"))
            {
                if (!Arguments.TryInt64(context, request[++i], out var count))
                {
                    return;
                }

                if (count < 1)
                {
                    context.Writer.WriteError(RedisErrors.Syntax);
                    return;
                }
            }
            else
            {
                context.Writer.WriteError(RedisErrors.Syntax);
                return;
            }
        }

        var reply = new ScanFieldsReply(context.Writer, pattern, matchAll, noValues);
        if (!context.Shard.ReadHash(request[1], ref reply))
        {
            context.Writer.WriteArrayHeader(2);
            context.Writer.WriteBulkString("0"u8);
            context.Writer.WriteArrayHeader(0);
        }
    }

    /// <summary>HRANDFIELD key [count [WITHVALUES]].</summary>
    public static void HRandField(CommandContext context, RespRequest request)
    {
        if (request.Count > 4 || (request.Count == 4 && !AsciiIgnoreCaseComparer.IsKeyword(request[3], "WITHVALUES")))
        {
            context.Writer.WriteError(RedisErrors.Syntax);
            return;
        }

        long? count = null;
        if (request.Count >= 3)
        {
            if (!Arguments.TryInt64(context, request[2], out var wanted))
            {
                return;
            }

            // As Redis: a count whose picks could not be counted (or, with values, paired) is out of range.
            if (wanted == long.MinValue || (request.Count == 4 && Math.Abs(wanted) > long.MaxValue / 2))
            {
                context.Writer.WriteError("ERR value is out of range");
                return;
            }

            if (-wanted > MaxRepeatedPicks)
            {
                context.Writer.WriteError($"ERR HRANDFIELD count {wanted} asks for more than {MaxRepeatedPicks} picks");
                return;
            }

            count = wanted;
        }

        var withValues = request.Count == 4;
        var reply = new RandomFieldsReply(context.Writer, count, withValues);
        if (Read(context, request, ref reply))
        {
            if (count is null)
            {
                context.Writer.WriteNull();
            }
            else
            {
                RandomFieldsReply.WriteHeader(context.Writer, 0, withValues);
            }
        }
    }

    private static void All(CommandContext context, RespRequest request, FieldParts parts)
    {
        var reply = new AllFieldsReply(context.Writer, parts);
        if (Read(context, request, ref reply))
        {
            AllFieldsReply.WriteHeader(context.Writer, parts, 0);
        }
    }

    private static void Number(CommandContext context, RespRequest request, HashNumber number)
    {
        var reply = new HashNumberReply(context.Writer, request, number);
        if (Read(context, request, ref reply))
        {
            context.Writer.WriteInteger(0);
        }
    }

    /// <summary>Reads the hash into <paramref name="reply"/>; true when the key is absent and the caller answers for an empty hash.</summary>
    private static bool Read<TReply>(CommandContext context, RespRequest request, ref TReply reply)
        where TReply : IEntryReader, allows ref struct
    {
        var key = request[1];
        return context.CheckKey(key) && !context.Shard.ReadHash(key, ref reply);
    }

    /// <summary>Applies <paramref name="edit"/>; the edit with its results, or null with the error written.</summary>
    private static TEdit? Edit<TEdit>(CommandContext context, RespRequest request, TEdit edit)
        where TEdit : struct, Grains.Hashes.IHashEdit
    {
        var key = request[1];
        var status = context.Shard.EditHash(key, context.Scratch, ref edit);
        if (status == UpdateStatus.Ok)
        {
            return edit;
        }

        context.Writer.WriteError(status == UpdateStatus.TooLarge ? ErrorText.ValueTooLarge(context.MaxValueBytes) : RedisErrors.OutOfMemory);
        return null;
    }

    private static bool Increment(CommandContext context, RespRequest request, ref IncrementField edit)
    {
        var key = request[1];
        var status = context.Shard.EditHash(key, context.Scratch, ref edit);
        var error = status switch
        {
            UpdateStatus.TooLarge => ErrorText.ValueTooLarge(context.MaxValueBytes),
            UpdateStatus.OutOfMemory => RedisErrors.OutOfMemory,
            _ => edit.Outcome switch
            {
                FieldIncrement.NotInteger => "ERR hash value is not an integer",
                FieldIncrement.NotFloat => "ERR hash value is not a float",
                FieldIncrement.Overflow => ErrorText.Overflow,
                FieldIncrement.NotFinite => ErrorText.NotFinite,
                _ => null,
            },
        };
        if (error is null)
        {
            return true;
        }

        context.Writer.WriteError(error);
        return false;
    }

    /// <summary>Checks the key and that field/value pairs follow it (at least one).</summary>
    private static bool CheckPairs(CommandContext context, RespRequest request, string command)
    {
        if (request.Count % 2 != 0)
        {
            context.Writer.WriteError(RedisErrors.WrongArity(command));
            return false;
        }

        return context.CheckKey(request[1]);
    }
}
