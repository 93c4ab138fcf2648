using Cubby.Grains;
using Cubby.Resp;
using Cubby.Text;

namespace Cubby.Grains.Commands;

/// <summary>EXPIRE and its family, PERSIST, TTL, PTTL, EXPIRETIME and PEXPIRETIME.</summary>
internal static class ExpiryCommands
{
    public static void Expire(CommandContext context, RespRequest request) => SetExpiry(context, request, ExpiryUnit.Seconds, "expire");

    public static void PExpire(CommandContext context, RespRequest request) => SetExpiry(context, request, ExpiryUnit.Milliseconds, "pexpire");

    public static void ExpireAt(CommandContext context, RespRequest request) => SetExpiry(context, request, ExpiryUnit.UnixSeconds, "expireat");

    public static void PExpireAt(CommandContext context, RespRequest request) => SetExpiry(context, request, ExpiryUnit.UnixMilliseconds, "pexpireat");

    public static void Persist(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (context.CheckKey(key))
        {
            context.Writer.WriteInteger(context.Shard.Persist(key) ? 1 : 0);
        }
    }

    public static void Ttl(CommandContext context, RespRequest request) => ReportExpiry(context, request, static (metadata, now) => (metadata.TimeToLive(now) + 500) / 1000);

    public static void PTtl(CommandContext context, RespRequest request) => ReportExpiry(context, request, static (metadata, now) => metadata.TimeToLive(now));

    public static void ExpireTime(CommandContext context, RespRequest request) => ReportExpiry(context, request, static (metadata, _) => RoundToSeconds(metadata.ExpiresAt));

    public static void PExpireTime(CommandContext context, RespRequest request) => ReportExpiry(context, request, static (metadata, _) => metadata.ExpiresAt);

    /// <summary>Milliseconds to the nearest second, as Redis reports EXPIRETIME; cannot overflow near long.MaxValue.</summary>
    private static long RoundToSeconds(long milliseconds) => (milliseconds / 1000) + (milliseconds % 1000 >= 500 ? 1 : 0);

    private static void SetExpiry(CommandContext context, RespRequest request, ExpiryUnit unit, string command)
    {
        var key = request[1];
        if (!context.CheckKey(key) || !TryReadCondition(context, request, out var condition) || !Arguments.TryExpireTime(context, request[2], unit, command, out var expiresAt))
        {
            return;
        }

        context.Writer.WriteInteger(context.Shard.Expire(key, expiresAt, condition) ? 1 : 0);
    }

    private static bool TryReadCondition(CommandContext context, RespRequest request, out ExpireCondition condition)
    {
        condition = ExpireCondition.Always;
        bool nx = false, xx = false, gt = false, lt = false;
        for (var i = 3; i < request.Count; i++)
        {
            var option = request[i];
            if (AsciiIgnoreCaseComparer.IsKeyword(option, "NX"))
            {
                nx = true;
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(option, "XX"))
            {
                xx = true;
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(option, "GT"))
            {
                gt = true;
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(option, "LT"))
            {
                lt = true;
            }
            else
            {
                context.Writer.WriteError($"ERR Unsupported option {RedisErrors.Printable(option)}");
                return false;
            }
        }

        if (nx && (xx || gt || lt))
        {
            context.Writer.WriteError(ErrorText.ExpireOptionsNxXx);
            return false;
        }

        if (gt && lt)
        {
            context.Writer.WriteError(ErrorText.ExpireOptionsGtLt);
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

    private static void ReportExpiry(CommandContext context, RespRequest request, Func<Grains.Storage.EntryMetadata, long, long> measure)
    {
        var key = request[1];
        if (!context.CheckKey(key))
        {
            return;
        }

        if (!context.Shard.TryGetMetadata(key, out var metadata, out var now))
        {
            context.Writer.WriteInteger(-2);
        }
        else
        {
            context.Writer.WriteInteger(metadata.HasExpiry ? measure(metadata, now) : -1);
        }
    }
}
