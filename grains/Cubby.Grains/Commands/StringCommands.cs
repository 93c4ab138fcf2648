using Cubby.Grains;
using Cubby.Grains.Storage;
using Cubby.Resp;
using Cubby.Text;

namespace Cubby.Grains.Commands;

/// <summary>GET, SET and the other string commands.</summary>
internal static class StringCommands
{
    public static void Get(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key))
        {
            return;
        }

        var reply = new BulkReply(context.Writer);
        Lookup(context, request, 1, ref reply);
    }

    /// <summary>
    /// A read that counts as a hit or a miss, renews a sliding expiry, and answers null when absent; or, as MGET does
    /// when <paramref name="otherKindsAreAbsent"/>, when the key holds another kind of value than a string.
    /// </summary>
    public static void Lookup<TReader>(CommandContext context, RespRequest request, int keyArgument, ref TReader reply, bool otherKindsAreAbsent = false)
        where TReader : IEntryReader, allows ref struct
    {
        if (context.ShardAt(keyArgument).Read(request[keyArgument], slide: true, ref reply, otherKindsAreAbsent))
        {
            context.Hit();
        }
        else
        {
            context.Miss();
            context.Writer.WriteNull();
        }
    }

    public static void Set(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key))
        {
            return;
        }

        // As Redis does: read every option first (a repeated option is allowed, a conflicting one is a syntax error),
        // and only then check the expire time.
        bool nx = false, xx = false, returnPrevious = false, keepTtl = false;
        ExpiryUnit? unit = null;
        var expiryArgument = 0;
        for (var i = 3; i < request.Count; i++)
        {
            var option = request[i];
            if (AsciiIgnoreCaseComparer.IsKeyword(option, "NX") && !xx)
            {
                nx = true;
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(option, "XX") && !nx)
            {
                xx = true;
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(option, "GET"))
            {
                returnPrevious = true;
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(option, "KEEPTTL") && unit is null)
            {
                keepTtl = true;
            }
            else if (!keepTtl && i + 1 < request.Count && ExpiryOption(option) is { } optionUnit && (unit is null || unit == optionUnit))
            {
                unit = optionUnit;
                expiryArgument = ++i;
            }
            else
            {
                context.Writer.WriteError(RedisErrors.Syntax);
                return;
            }
        }

        var condition = nx ? WriteCondition.IfAbsent : xx ? WriteCondition.IfPresent : WriteCondition.Always;
        var expiry = keepTtl ? ExpirySpec.Keep : ExpirySpec.Never;
        if (unit is { } expiryUnit)
        {
            if (!Arguments.TryWriteExpiry(context, request[expiryArgument], expiryUnit, "set", out var expiresAt))
            {
                return;
            }

            expiry = new ExpirySpec(expiresAt);
        }

        var grain = context.Shard;
        var setRequest = new SetRequest(condition, expiry);
        SetStatus status;
        var previousFound = false;
        if (returnPrevious)
        {
            var previous = new ValueCapture(context.Scratch);
            status = grain.Set(key, request[2], setRequest, ref previous);
            previousFound = previous.Found;
        }
        else
        {
            var none = default(NoReader);
            status = grain.Set(key, request[2], setRequest, ref none);
        }

        if (status == SetStatus.OutOfMemory)
        {
            context.Writer.WriteError(RedisErrors.OutOfMemory);
        }
        else if (returnPrevious)
        {
            WriteCaptured(context, previousFound);
        }
        else if (status == SetStatus.NotStored)
        {
            context.Writer.WriteNull();
        }
        else
        {
            context.Writer.WriteOk();
        }
    }

    public static void SetNx(CommandContext context, RespRequest request)
    {
        var status = Writes.Set(context, request, 1, request[2], new SetRequest(WriteCondition.IfAbsent, ExpirySpec.Never));
        if (status is { } written)
        {
            context.Writer.WriteInteger(written == SetStatus.Created ? 1 : 0);
        }
    }

    public static void SetEx(CommandContext context, RespRequest request) => SetWithExpiry(context, request, ExpiryUnit.Seconds, "setex");

    public static void PSetEx(CommandContext context, RespRequest request) => SetWithExpiry(context, request, ExpiryUnit.Milliseconds, "psetex");

    public static void GetEx(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key))
        {
            return;
        }

        long? expiresAt = null;
        if (request.Count > 2)
        {
            var option = request[2];
            if (request.Count == 3 && AsciiIgnoreCaseComparer.IsKeyword(option, "PERSIST"))
            {
                expiresAt = 0;
            }
            else if (request.Count == 4 && ExpiryOption(option) is { } unit)
            {
                if (!Arguments.TryWriteExpiry(context, request[3], unit, "getex", out var at))
                {
                    return;
                }

                expiresAt = at;
            }
            else
            {
                context.Writer.WriteError(RedisErrors.Syntax);
                return;
            }
        }

        var reply = new BulkReply(context.Writer);
        if (!context.Shard.ReadAndChangeExpiry(key, expiresAt, ref reply))
        {
            context.Writer.WriteNull();
        }
    }

    public static void GetDel(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key))
        {
            return;
        }

        var reply = new BulkReply(context.Writer);
        if (!context.Shard.ReadAndRemove(key, ref reply))
        {
            context.Writer.WriteNull();
        }
    }

    /// <summary>GETSET: sets the value, dropping any expiry, and answers the previous one (SET key value GET).</summary>
    public static void GetSet(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key))
        {
            return;
        }

        var previous = new ValueCapture(context.Scratch);
        var status = context.Shard.Set(key, request[2], new SetRequest(WriteCondition.Always, ExpirySpec.Never), ref previous);
        if (status == SetStatus.OutOfMemory)
        {
            context.Writer.WriteError(RedisErrors.OutOfMemory);
        }
        else
        {
            WriteCaptured(context, previous.Found);
        }
    }

    public static void MGet(CommandContext context, RespRequest request)
    {
        for (var i = 1; i < request.Count; i++)
        {
            if (!context.CheckKey(request[i]))
            {
                return;
            }
        }

        context.Writer.WriteArrayHeader(request.Count - 1);
        context.MarkBoundary();
        var reply = new BulkReply(context.Writer);
        for (var i = 1; i < request.Count; i++)
        {
            Lookup(context, request, i, ref reply, otherKindsAreAbsent: true);
            context.MarkBoundary();
        }
    }

    public static void MSet(CommandContext context, RespRequest request)
    {
        if (!CheckPairs(context, request, "mset"))
        {
            return;
        }

        for (var i = 1; i < request.Count; i += 2)
        {
            if (Writes.Set(context, request, i, request[i + 1], new SetRequest(WriteCondition.Always, ExpirySpec.Never)) is null)
            {
                return;
            }
        }

        context.Writer.WriteOk();
    }

    /// <summary>Sets every key or none: the router holds the turns of all the keys' shards for the whole command.</summary>
    public static void MSetNx(CommandContext context, RespRequest request)
    {
        if (!CheckPairs(context, request, "msetnx"))
        {
            return;
        }

        long bytes = 0;
        for (var i = 1; i < request.Count; i += 2)
        {
            bytes += context.Catalog.EstimateSize(request[i].Length, request[i + 1].Length);
        }

        // Room for all of them before the first is written, so one key's write does not evict another's.
        if (!context.Catalog.Evictor.MakeRoom(bytes))
        {
            context.Writer.WriteError(RedisErrors.OutOfMemory);
            return;
        }

        for (var i = 1; i < request.Count; i += 2)
        {
            if (context.ShardAt(i).Exists(request[i]))
            {
                context.Writer.WriteInteger(0);
                return;
            }
        }

        var none = default(NoReader);
        for (var i = 1; i < request.Count; i += 2)
        {
            if (context.ShardAt(i).Set(request[i], request[i + 1], new SetRequest(WriteCondition.Always, ExpirySpec.Never), ref none) == SetStatus.OutOfMemory)
            {
                context.Writer.WriteError(RedisErrors.OutOfMemory);
                return;
            }
        }

        context.Writer.WriteInteger(1);
    }

    public static void Append(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key))
        {
            return;
        }

        var status = context.Shard.Append(key, request[2], out var length);
        Writes.ReplyLength(context, status, length);
    }

    public static void StrLen(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key))
        {
            return;
        }

        var capture = default(LengthCapture);
        context.Shard.Read(key, slide: false, ref capture);
        context.Writer.WriteInteger(capture.Length);
    }

    public static void GetRange(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key) || !Arguments.TryInt64(context, request[2], out var start) || !Arguments.TryInt64(context, request[3], out var end))
        {
            return;
        }

        var reply = new RangeReply(context.Writer, start, end);
        if (!context.Shard.Read(key, slide: true, ref reply))
        {
            context.Writer.WriteBulkString(ReadOnlySpan<byte>.Empty);
        }
    }

    public static void SetRange(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key) || !Arguments.TryInt64(context, request[2], out var offset))
        {
            return;
        }

        if (offset < 0)
        {
            context.Writer.WriteError(ErrorText.OffsetOutOfRange);
            return;
        }

        // Written so a huge offset cannot overflow past the check. Like Redis, an empty patch writes nothing and so is
        // never too large: it only reports the current length.
        var patch = request[3];
        var limit = context.MaxValueBytes;
        if (!patch.IsEmpty && offset > limit - patch.Length)
        {
            context.Writer.WriteError(ErrorText.ValueTooLarge(limit));
            return;
        }

        var status = context.Shard.SetRange(key, offset, request[3], out var length);
        Writes.ReplyLength(context, status, length);
    }

    private static void SetWithExpiry(CommandContext context, RespRequest request, ExpiryUnit unit, string command)
    {
        if (!Arguments.TryWriteExpiry(context, request[2], unit, command, out var expiresAt))
        {
            return;
        }

        if (Writes.Set(context, request, 1, request[3], new SetRequest(WriteCondition.Always, new ExpirySpec(expiresAt))) is not null)
        {
            context.Writer.WriteOk();
        }
    }

    private static ExpiryUnit? ExpiryOption(ReadOnlySpan<byte> option) =>
        AsciiIgnoreCaseComparer.IsKeyword(option, "EX") ? ExpiryUnit.Seconds
        : AsciiIgnoreCaseComparer.IsKeyword(option, "PX") ? ExpiryUnit.Milliseconds
        : AsciiIgnoreCaseComparer.IsKeyword(option, "EXAT") ? ExpiryUnit.UnixSeconds
        : AsciiIgnoreCaseComparer.IsKeyword(option, "PXAT") ? ExpiryUnit.UnixMilliseconds
        : null;

    private static bool CheckPairs(CommandContext context, RespRequest request, string command)
    {
        if (request.Count % 2 == 0)
        {
            context.Writer.WriteError(RedisErrors.WrongArity(command));
            return false;
        }

        for (var i = 1; i < request.Count; i += 2)
        {
            if (!context.CheckKey(request[i]))
            {
                return false;
            }
        }

        return true;
    }

    private static void WriteCaptured(CommandContext context, bool found)
    {
        if (found)
        {
            context.Writer.WriteBulkString(context.Scratch.WrittenSpan);
        }
        else
        {
            context.Writer.WriteNull();
        }
    }
}
