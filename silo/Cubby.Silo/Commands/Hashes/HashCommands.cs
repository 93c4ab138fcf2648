using Cubby.Grains;
using Cubby.Resp;
using Cubby.Silo.Protocol;
using Cubby.Text;

namespace Cubby.Silo.Commands.Hashes;

/// <summary>
/// The hash commands, with Redis 7's replies and errors. Each runs in its shard's turn: reads give the stored encoding
/// to a reply writer, writes rewrite it through an <see cref="Grains.Hashes.IHashEdit"/>.
/// </summary>
internal static class HashCommands
{
    /// <summary>The most picks a negative HRANDFIELD count may ask for: each is a reply element built in memory.</summary>
    private const long MaxRepeatedPicks = 1_000_000;

    public static void HSet(ClientSession session, RespRequest request)
    {
        if (CheckPairs(session, request, "hset") && Edit(session, request, new SetFields(request, onlyIfAbsent: false)) is { } edit)
        {
            session.Writer.WriteInteger(edit.Added);
        }
    }

    public static void HMSet(ClientSession session, RespRequest request)
    {
        if (CheckPairs(session, request, "hmset") && Edit(session, request, new SetFields(request, onlyIfAbsent: false)) is not null)
        {
            session.Writer.WriteOk();
        }
    }

    public static void HSetNx(ClientSession session, RespRequest request)
    {
        if (session.CheckKey(request[1]) && Edit(session, request, new SetFields(request, onlyIfAbsent: true)) is { } edit)
        {
            session.Writer.WriteInteger(edit.Added);
        }
    }

    public static void HDel(ClientSession session, RespRequest request)
    {
        if (session.CheckKey(request[1]) && Edit(session, request, new DeleteFields(request)) is { } edit)
        {
            session.Writer.WriteInteger(edit.Removed);
        }
    }

    public static void HIncrBy(ClientSession session, RespRequest request)
    {
        if (!session.CheckKey(request[1]) || !Arguments.TryInt64(session, request[3], out var delta))
        {
            return;
        }

        Span<byte> text = stackalloc byte[RedisNumber.MaxDoubleLength];
        var edit = new IncrementField(request, delta, 0, isFloat: false, text);
        if (Increment(session, request, ref edit))
        {
            session.Writer.WriteInteger(edit.Result);
        }
    }

    public static void HIncrByFloat(ClientSession session, RespRequest request)
    {
        if (!session.CheckKey(request[1]) || !Arguments.TryDouble(session, request[3], out var delta))
        {
            return;
        }

        Span<byte> text = stackalloc byte[RedisNumber.MaxDoubleLength];
        var edit = new IncrementField(request, 0, delta, isFloat: true, text);
        if (Increment(session, request, ref edit))
        {
            session.Writer.WriteBulkString(text[..edit.TextLength]);
        }
    }

    public static void HGet(ClientSession session, RespRequest request)
    {
        var reply = new FieldReply(session.Writer, request);
        if (Read(session, request, ref reply))
        {
            session.Writer.WriteNull();
        }
    }

    public static void HMGet(ClientSession session, RespRequest request)
    {
        var reply = new FieldsReply(session.Writer, request);
        if (Read(session, request, ref reply))
        {
            session.Writer.WriteArrayHeader(request.Count - 2);
            for (var i = 2; i < request.Count; i++)
            {
                session.Writer.WriteNull();
            }
        }
    }

    public static void HGetAll(ClientSession session, RespRequest request) => All(session, request, FieldParts.Both);

    public static void HKeys(ClientSession session, RespRequest request) => All(session, request, FieldParts.Names);

    public static void HVals(ClientSession session, RespRequest request) => All(session, request, FieldParts.Values);

    public static void HLen(ClientSession session, RespRequest request) => Number(session, request, HashNumber.Length);

    public static void HExists(ClientSession session, RespRequest request) => Number(session, request, HashNumber.Exists);

    public static void HStrLen(ClientSession session, RespRequest request) => Number(session, request, HashNumber.FieldLength);

    /// <summary>HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES].</summary>
    public static void HScan(ClientSession session, RespRequest request)
    {
        if (!session.CheckKey(request[1]))
        {
            return;
        }

        if (!KeyspaceCommands.RespCursor(request[2], out _))
        {
            session.Writer.WriteError(ErrorText.InvalidCursor);
            return;
        }

        byte[]? pattern = null;
        var noValues = false;
        for (var i = 3; i < request.Count; i++)
        {
            var option = request[i];
            if (Arguments.Is(option, "NOVALUES"))
            {
                noValues = true;
            }
            else if (i + 1 < request.Count && Arguments.Is(option, "MATCH"))
            {
                pattern = request[++i].ToArray();
            }
            else if (i + 1 < request.Count && Arguments.Is(option, "COUNT"))
            {
                if (!Arguments.TryInt64(session, request[++i], out var count))
                {
                    return;
                }

                if (count < 1)
                {
                    session.Writer.WriteError(ErrorText.Syntax);
                    return;
                }
            }
            else
            {
                session.Writer.WriteError(ErrorText.Syntax);
                return;
            }
        }

        var reply = new ScanFieldsReply(session.Writer, pattern, noValues);
        if (!session.Silo.Catalog.GrainFor(request[1]).ReadHash(request[1], ref reply))
        {
            session.Writer.WriteArrayHeader(2);
            session.Writer.WriteBulkString("0"u8);
            session.Writer.WriteArrayHeader(0);
        }
    }

    /// <summary>HRANDFIELD key [count [WITHVALUES]].</summary>
    public static void HRandField(ClientSession session, RespRequest request)
    {
        if (request.Count > 4 || (request.Count == 4 && !Arguments.Is(request[3], "WITHVALUES")))
        {
            session.Writer.WriteError(ErrorText.Syntax);
            return;
        }

        long? count = null;
        if (request.Count >= 3)
        {
            if (!Arguments.TryInt64(session, request[2], out var wanted))
            {
                return;
            }

            // As Redis: a count whose picks could not be counted (or, with values, paired) is out of range.
            if (wanted == long.MinValue || (request.Count == 4 && Math.Abs(wanted) > long.MaxValue / 2))
            {
                session.Writer.WriteError("ERR value is out of range");
                return;
            }

            if (-wanted > MaxRepeatedPicks)
            {
                session.Writer.WriteError($"ERR HRANDFIELD count {wanted} asks for more than {MaxRepeatedPicks} picks");
                return;
            }

            count = wanted;
        }

        var withValues = request.Count == 4;
        var reply = new RandomFieldsReply(session.Writer, count, withValues);
        if (Read(session, request, ref reply))
        {
            if (count is null)
            {
                session.Writer.WriteNull();
            }
            else
            {
                RandomFieldsReply.WriteHeader(session.Writer, 0, withValues);
            }
        }
    }

    private static void All(ClientSession session, RespRequest request, FieldParts parts)
    {
        var reply = new AllFieldsReply(session.Writer, parts);
        if (Read(session, request, ref reply))
        {
            AllFieldsReply.WriteHeader(session.Writer, parts, 0);
        }
    }

    private static void Number(ClientSession session, RespRequest request, HashNumber number)
    {
        var reply = new HashNumberReply(session.Writer, request, number);
        if (Read(session, request, ref reply))
        {
            session.Writer.WriteInteger(0);
        }
    }

    /// <summary>Reads the hash into <paramref name="reply"/>; true when the key is absent and the caller answers for an empty hash.</summary>
    private static bool Read<TReply>(ClientSession session, RespRequest request, ref TReply reply)
        where TReply : IEntryReader, allows ref struct
    {
        var key = request[1];
        return session.CheckKey(key) && !session.Silo.Catalog.GrainFor(key).ReadHash(key, ref reply);
    }

    /// <summary>Applies <paramref name="edit"/>; the edit with its results, or null with the error written.</summary>
    private static TEdit? Edit<TEdit>(ClientSession session, RespRequest request, TEdit edit)
        where TEdit : struct, Grains.Hashes.IHashEdit
    {
        var key = request[1];
        var status = session.Silo.Catalog.GrainFor(key).EditHash(key, session.Scratch, ref edit);
        if (status == UpdateStatus.Ok)
        {
            return edit;
        }

        session.Writer.WriteError(status == UpdateStatus.TooLarge ? ErrorText.ValueTooLarge(session.Silo.Options.MaxValueBytes) : ErrorText.OutOfMemory);
        return null;
    }

    private static bool Increment(ClientSession session, RespRequest request, ref IncrementField edit)
    {
        var key = request[1];
        var status = session.Silo.Catalog.GrainFor(key).EditHash(key, session.Scratch, ref edit);
        var error = status switch
        {
            UpdateStatus.TooLarge => ErrorText.ValueTooLarge(session.Silo.Options.MaxValueBytes),
            UpdateStatus.OutOfMemory => ErrorText.OutOfMemory,
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

        session.Writer.WriteError(error);
        return false;
    }

    /// <summary>Checks the key and that field/value pairs follow it (at least one).</summary>
    private static bool CheckPairs(ClientSession session, RespRequest request, string command)
    {
        if (request.Count % 2 != 0)
        {
            session.Writer.WriteError(ErrorText.WrongArity(command));
            return false;
        }

        return session.CheckKey(request[1]);
    }
}
