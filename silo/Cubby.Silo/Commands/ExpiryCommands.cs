using Cubby.Grains;
using Cubby.Resp;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Commands;

/// <summary>EXPIRE and its family, PERSIST, TTL, PTTL, EXPIRETIME and PEXPIRETIME.</summary>
internal static class ExpiryCommands
{
    public static void Expire(ClientSession session, RespRequest request) => SetExpiry(session, request, ExpiryUnit.Seconds, "expire");

    public static void PExpire(ClientSession session, RespRequest request) => SetExpiry(session, request, ExpiryUnit.Milliseconds, "pexpire");

    public static void ExpireAt(ClientSession session, RespRequest request) => SetExpiry(session, request, ExpiryUnit.UnixSeconds, "expireat");

    public static void PExpireAt(ClientSession session, RespRequest request) => SetExpiry(session, request, ExpiryUnit.UnixMilliseconds, "pexpireat");

    public static void Persist(ClientSession session, RespRequest request)
    {
        var key = request[1];
        if (session.CheckKey(key))
        {
            session.Writer.WriteInteger(session.Silo.Catalog.GrainFor(key).Persist(key) ? 1 : 0);
        }
    }

    public static void Ttl(ClientSession session, RespRequest request) => ReportExpiry(session, request, static (metadata, now) => (metadata.TimeToLive(now) + 500) / 1000);

    public static void PTtl(ClientSession session, RespRequest request) => ReportExpiry(session, request, static (metadata, now) => metadata.TimeToLive(now));

    public static void ExpireTime(ClientSession session, RespRequest request) => ReportExpiry(session, request, static (metadata, _) => RoundToSeconds(metadata.ExpiresAt));

    public static void PExpireTime(ClientSession session, RespRequest request) => ReportExpiry(session, request, static (metadata, _) => metadata.ExpiresAt);

    /// <summary>Milliseconds to the nearest second, as Redis reports EXPIRETIME; cannot overflow near long.MaxValue.</summary>
    private static long RoundToSeconds(long milliseconds) => (milliseconds / 1000) + (milliseconds % 1000 >= 500 ? 1 : 0);

    private static void SetExpiry(ClientSession session, RespRequest request, ExpiryUnit unit, string command)
    {
        var key = request[1];
        if (!session.CheckKey(key) || !TryReadCondition(session, request, out var condition) || !Arguments.TryExpireTime(session, request[2], unit, command, out var expiresAt))
        {
            return;
        }

        session.Writer.WriteInteger(session.Silo.Catalog.GrainFor(key).Expire(key, expiresAt, condition) ? 1 : 0);
    }

    private static bool TryReadCondition(ClientSession session, RespRequest request, out ExpireCondition condition)
    {
        condition = ExpireCondition.Always;
        bool nx = false, xx = false, gt = false, lt = false;
        for (var i = 3; i < request.Count; i++)
        {
            var option = request[i];
            if (Arguments.Is(option, "NX"))
            {
                nx = true;
            }
            else if (Arguments.Is(option, "XX"))
            {
                xx = true;
            }
            else if (Arguments.Is(option, "GT"))
            {
                gt = true;
            }
            else if (Arguments.Is(option, "LT"))
            {
                lt = true;
            }
            else
            {
                session.Writer.WriteError($"ERR Unsupported option {ErrorText.Printable(option)}");
                return false;
            }
        }

        if (nx && (xx || gt || lt))
        {
            session.Writer.WriteError(ErrorText.ExpireOptionsNxXx);
            return false;
        }

        if (gt && lt)
        {
            session.Writer.WriteError(ErrorText.ExpireOptionsGtLt);
            return false;
        }

        // XX may be combined with GT or LT; GT already implies an existing expiry, LT alone treats none as infinite.
        condition = nx ? ExpireCondition.IfNoExpiry
            : gt ? ExpireCondition.IfGreater
            : lt ? (xx ? ExpireCondition.IfLessWithExpiry : ExpireCondition.IfLess)
            : xx ? ExpireCondition.IfHasExpiry
            : ExpireCondition.Always;
        return true;
    }

    private static void ReportExpiry(ClientSession session, RespRequest request, Func<Grains.Storage.EntryMetadata, long, long> measure)
    {
        var key = request[1];
        if (!session.CheckKey(key))
        {
            return;
        }

        if (!session.Silo.Catalog.GrainFor(key).TryGetMetadata(key, out var metadata, out var now))
        {
            session.Writer.WriteInteger(-2);
        }
        else
        {
            session.Writer.WriteInteger(metadata.HasExpiry ? measure(metadata, now) : -1);
        }
    }
}
