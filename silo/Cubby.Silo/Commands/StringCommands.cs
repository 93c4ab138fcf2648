using Cubby.Grains;
using Cubby.Grains.Storage;
using Cubby.Resp;
using Cubby.Silo.Protocol;
using Cubby.Text;

namespace Cubby.Silo.Commands;

/// <summary>GET, SET and the other string commands.</summary>
internal static class StringCommands
{
    public static void Get(ClientSession session, RespRequest request)
    {
        var key = request[1];
        if (!session.CheckKey(key))
        {
            return;
        }

        var reply = new BulkReply(session.Writer);
        Lookup(session, key, ref reply);
    }

    /// <summary>
    /// A read that counts as a hit or a miss, renews a sliding expiry, and answers null when absent; or, as MGET does
    /// when <paramref name="otherKindsAreAbsent"/>, when the key holds another kind of value than a string.
    /// </summary>
    public static void Lookup<TReader>(ClientSession session, ReadOnlySpan<byte> key, ref TReader reply, bool otherKindsAreAbsent = false)
        where TReader : IEntryReader, allows ref struct
    {
        if (session.Silo.Catalog.GrainFor(key).Read(key, slide: true, ref reply, otherKindsAreAbsent))
        {
            session.Hit();
        }
        else
        {
            session.Miss();
            session.Writer.WriteNull();
        }
    }

    public static void Set(ClientSession session, RespRequest request)
    {
        var key = request[1];
        if (!session.CheckKey(key))
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
            if (Arguments.Is(option, "NX") && !xx)
            {
                nx = true;
            }
            else if (Arguments.Is(option, "XX") && !nx)
            {
                xx = true;
            }
            else if (Arguments.Is(option, "GET"))
            {
                returnPrevious = true;
            }
            else if (Arguments.Is(option, "KEEPTTL") && unit is null)
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
                session.Writer.WriteError(ErrorText.Syntax);
                return;
            }
        }

        var condition = nx ? WriteCondition.IfAbsent : xx ? WriteCondition.IfPresent : WriteCondition.Always;
        var expiry = keepTtl ? ExpirySpec.Keep : ExpirySpec.Never;
        if (unit is { } expiryUnit)
        {
            if (!Arguments.TryWriteExpiry(session, request[expiryArgument], expiryUnit, "set", out var expiresAt))
            {
                return;
            }

            expiry = new ExpirySpec(expiresAt);
        }

        var grain = session.Silo.Catalog.GrainFor(key);
        var setRequest = new SetRequest(condition, expiry);
        SetStatus status;
        var previousFound = false;
        if (returnPrevious)
        {
            var previous = new ValueCapture(session.Scratch);
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
            session.Writer.WriteError(ErrorText.OutOfMemory);
        }
        else if (returnPrevious)
        {
            WriteCaptured(session, previousFound);
        }
        else if (status == SetStatus.NotStored)
        {
            session.Writer.WriteNull();
        }
        else
        {
            session.Writer.WriteOk();
        }
    }

    public static void SetNx(ClientSession session, RespRequest request)
    {
        var status = Writes.Set(session, request[1], request[2], new SetRequest(WriteCondition.IfAbsent, ExpirySpec.Never));
        if (status is { } written)
        {
            session.Writer.WriteInteger(written == SetStatus.Created ? 1 : 0);
        }
    }

    public static void SetEx(ClientSession session, RespRequest request) => SetWithExpiry(session, request, ExpiryUnit.Seconds, "setex");

    public static void PSetEx(ClientSession session, RespRequest request) => SetWithExpiry(session, request, ExpiryUnit.Milliseconds, "psetex");

    public static void GetEx(ClientSession session, RespRequest request)
    {
        var key = request[1];
        if (!session.CheckKey(key))
        {
            return;
        }

        long? expiresAt = null;
        if (request.Count > 2)
        {
            var option = request[2];
            if (request.Count == 3 && Arguments.Is(option, "PERSIST"))
            {
                expiresAt = 0;
            }
            else if (request.Count == 4 && ExpiryOption(option) is { } unit)
            {
                if (!Arguments.TryWriteExpiry(session, request[3], unit, "getex", out var at))
                {
                    return;
                }

                expiresAt = at;
            }
            else
            {
                session.Writer.WriteError(ErrorText.Syntax);
                return;
            }
        }

        var reply = new BulkReply(session.Writer);
        if (!session.Silo.Catalog.GrainFor(key).ReadAndChangeExpiry(key, expiresAt, ref reply))
        {
            session.Writer.WriteNull();
        }
    }

    public static void GetDel(ClientSession session, RespRequest request)
    {
        var key = request[1];
        if (!session.CheckKey(key))
        {
            return;
        }

        var reply = new BulkReply(session.Writer);
        if (!session.Silo.Catalog.GrainFor(key).ReadAndRemove(key, ref reply))
        {
            session.Writer.WriteNull();
        }
    }

    /// <summary>GETSET: sets the value, dropping any expiry, and answers the previous one (SET key value GET).</summary>
    public static void GetSet(ClientSession session, RespRequest request)
    {
        var key = request[1];
        if (!session.CheckKey(key))
        {
            return;
        }

        var previous = new ValueCapture(session.Scratch);
        var status = session.Silo.Catalog.GrainFor(key).Set(key, request[2], new SetRequest(WriteCondition.Always, ExpirySpec.Never), ref previous);
        if (status == SetStatus.OutOfMemory)
        {
            session.Writer.WriteError(ErrorText.OutOfMemory);
        }
        else
        {
            WriteCaptured(session, previous.Found);
        }
    }

    public static void MGet(ClientSession session, RespRequest request)
    {
        for (var i = 1; i < request.Count; i++)
        {
            if (!session.CheckKey(request[i]))
            {
                return;
            }
        }

        session.Writer.WriteArrayHeader(request.Count - 1);
        var reply = new BulkReply(session.Writer);
        for (var i = 1; i < request.Count; i++)
        {
            Lookup(session, request[i], ref reply, otherKindsAreAbsent: true);
        }
    }

    public static void MSet(ClientSession session, RespRequest request)
    {
        if (!CheckPairs(session, request, "mset"))
        {
            return;
        }

        for (var i = 1; i < request.Count; i += 2)
        {
            if (Writes.Set(session, request[i], request[i + 1], new SetRequest(WriteCondition.Always, ExpirySpec.Never)) is null)
            {
                return;
            }
        }

        session.Writer.WriteOk();
    }

    /// <summary>Sets every key or none: the turns of all the keys' grains are held together, taken in slot order.</summary>
    public static void MSetNx(ClientSession session, RespRequest request)
    {
        if (!CheckPairs(session, request, "msetnx"))
        {
            return;
        }

        var catalog = session.Silo.Catalog;
        var slots = new SortedSet<int>();
        long bytes = 0;
        for (var i = 1; i < request.Count; i += 2)
        {
            slots.Add(catalog.ShardMap.SlotOf(request[i]));
            bytes += catalog.EstimateSize(request[i].Length, request[i + 1].Length);
        }

        var held = new List<Shard>(slots.Count);
        try
        {
            foreach (var slot in slots)
            {
                var grain = catalog[slot];
                grain.EnterTurn();
                held.Add(grain);
            }

            // Room for all of them before the first is written, so one key's write does not evict another's.
            if (!catalog.Evictor.MakeRoom(bytes))
            {
                session.Writer.WriteError(ErrorText.OutOfMemory);
                return;
            }

            for (var i = 1; i < request.Count; i += 2)
            {
                if (catalog.GrainFor(request[i]).Exists(request[i]))
                {
                    session.Writer.WriteInteger(0);
                    return;
                }
            }

            var none = default(NoReader);
            for (var i = 1; i < request.Count; i += 2)
            {
                if (catalog.GrainFor(request[i]).Set(request[i], request[i + 1], new SetRequest(WriteCondition.Always, ExpirySpec.Never), ref none) == SetStatus.OutOfMemory)
                {
                    session.Writer.WriteError(ErrorText.OutOfMemory);
                    return;
                }
            }

            session.Writer.WriteInteger(1);
        }
        finally
        {
            foreach (var grain in held)
            {
                grain.ExitTurn();
            }
        }
    }

    public static void Append(ClientSession session, RespRequest request)
    {
        var key = request[1];
        if (!session.CheckKey(key))
        {
            return;
        }

        var status = session.Silo.Catalog.GrainFor(key).Append(key, request[2], out var length);
        Writes.ReplyLength(session, status, length);
    }

    public static void StrLen(ClientSession session, RespRequest request)
    {
        var key = request[1];
        if (!session.CheckKey(key))
        {
            return;
        }

        var capture = default(LengthCapture);
        session.Silo.Catalog.GrainFor(key).Read(key, slide: false, ref capture);
        session.Writer.WriteInteger(capture.Length);
    }

    public static void GetRange(ClientSession session, RespRequest request)
    {
        var key = request[1];
        if (!session.CheckKey(key) || !Arguments.TryInt64(session, request[2], out var start) || !Arguments.TryInt64(session, request[3], out var end))
        {
            return;
        }

        var reply = new RangeReply(session.Writer, start, end);
        if (!session.Silo.Catalog.GrainFor(key).Read(key, slide: true, ref reply))
        {
            session.Writer.WriteBulkString(ReadOnlySpan<byte>.Empty);
        }
    }

    public static void SetRange(ClientSession session, RespRequest request)
    {
        var key = request[1];
        if (!session.CheckKey(key) || !Arguments.TryInt64(session, request[2], out var offset))
        {
            return;
        }

        if (offset < 0)
        {
            session.Writer.WriteError(ErrorText.OffsetOutOfRange);
            return;
        }

        // Written so a huge offset cannot overflow past the check. Like Redis, an empty patch writes nothing and so is
        // never too large: it only reports the current length.
        var patch = request[3];
        var limit = session.Silo.Options.MaxValueBytes;
        if (!patch.IsEmpty && offset > limit - patch.Length)
        {
            session.Writer.WriteError(ErrorText.ValueTooLarge(limit));
            return;
        }

        var status = session.Silo.Catalog.GrainFor(key).SetRange(key, offset, request[3], out var length);
        Writes.ReplyLength(session, status, length);
    }

    private static void SetWithExpiry(ClientSession session, RespRequest request, ExpiryUnit unit, string command)
    {
        if (!Arguments.TryWriteExpiry(session, request[2], unit, command, out var expiresAt))
        {
            return;
        }

        if (Writes.Set(session, request[1], request[3], new SetRequest(WriteCondition.Always, new ExpirySpec(expiresAt))) is not null)
        {
            session.Writer.WriteOk();
        }
    }

    private static ExpiryUnit? ExpiryOption(ReadOnlySpan<byte> option) =>
        Arguments.Is(option, "EX") ? ExpiryUnit.Seconds
        : Arguments.Is(option, "PX") ? ExpiryUnit.Milliseconds
        : Arguments.Is(option, "EXAT") ? ExpiryUnit.UnixSeconds
        : Arguments.Is(option, "PXAT") ? ExpiryUnit.UnixMilliseconds
        : null;

    private static bool CheckPairs(ClientSession session, RespRequest request, string command)
    {
        if (request.Count % 2 == 0)
        {
            session.Writer.WriteError(ErrorText.WrongArity(command));
            return false;
        }

        for (var i = 1; i < request.Count; i += 2)
        {
            if (!session.CheckKey(request[i]))
            {
                return false;
            }
        }

        return true;
    }

    private static void WriteCaptured(ClientSession session, bool found)
    {
        if (found)
        {
            session.Writer.WriteBulkString(session.Scratch.WrittenSpan);
        }
        else
        {
            session.Writer.WriteNull();
        }
    }
}
