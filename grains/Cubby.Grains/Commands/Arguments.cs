using System.Text;
using Cubby.Resp;
using Cubby.Text;

namespace Cubby.Grains.Commands;

/// <summary>Reads command arguments; each Try method writes Redis's error reply itself when it returns false.</summary>
internal static class Arguments
{
    /// <summary>
    /// Checks a subcommand's argument count by Redis's arity convention (counting the command and the subcommand);
    /// on failure writes Redis's error, which names the subcommand as <c>command|subcommand</c>.
    /// </summary>
    public static bool CheckArity(CommandContext context, RespRequest request, int arity, string fullName)
    {
        if (arity >= 0 ? request.Count == arity : request.Count >= -arity)
        {
            return true;
        }

        context.Writer.WriteError(RedisErrors.WrongArity(fullName));
        return false;
    }

    public static bool TryInt64(CommandContext context, ReadOnlySpan<byte> argument, out long value) =>
        TryInt64(context, argument, out value, ErrorText.NotInteger);

    /// <summary>Parses an integer argument, or writes <paramref name="error"/> (a command's own wording of Redis's error).</summary>
    public static bool TryInt64(CommandContext context, ReadOnlySpan<byte> argument, out long value, string error)
    {
        if (RedisNumber.TryParseInt64(argument, out value))
        {
            return true;
        }

        context.Writer.WriteError(error);
        return false;
    }

    public static bool TryDouble(CommandContext context, ReadOnlySpan<byte> argument, out double value)
    {
        if (RedisNumber.TryParseDouble(argument, out value))
        {
            return true;
        }

        context.Writer.WriteError(ErrorText.NotFloat);
        return false;
    }

    /// <summary>
    /// Reads a write's expiry (SET EX/PX/EXAT/PXAT, SETEX, GETEX) as an absolute Unix millisecond time.
    /// The amount must be positive and must not overflow, as Redis requires.
    /// </summary>
    public static bool TryWriteExpiry(CommandContext context, ReadOnlySpan<byte> argument, ExpiryUnit unit, string command, out long expiresAt)
    {
        expiresAt = 0;
        if (!TryInt64(context, argument, out var amount))
        {
            return false;
        }

        if (amount <= 0 || !TryToAbsolute(amount, unit, context.NowMilliseconds, out expiresAt))
        {
            context.Writer.WriteError(ErrorText.InvalidExpireTime(command));
            return false;
        }

        return true;
    }

    /// <summary>
    /// Reads the EXPIRE family's time as absolute Unix milliseconds. Zero and negative amounts are allowed: they expire
    /// the key at once, as in Redis.
    /// </summary>
    public static bool TryExpireTime(CommandContext context, ReadOnlySpan<byte> argument, ExpiryUnit unit, string command, out long expiresAt)
    {
        expiresAt = 0;
        if (!TryInt64(context, argument, out var amount))
        {
            return false;
        }

        if (!TryToAbsolute(amount, unit, context.NowMilliseconds, out expiresAt))
        {
            context.Writer.WriteError(ErrorText.InvalidExpireTime(command));
            return false;
        }

        return true;
    }

    public static string Utf8(ReadOnlySpan<byte> argument) => Encoding.UTF8.GetString(argument);

    private static bool TryToAbsolute(long amount, ExpiryUnit unit, long now, out long expiresAt)
    {
        expiresAt = 0;
        var seconds = unit is ExpiryUnit.Seconds or ExpiryUnit.UnixSeconds;
        if (seconds && (amount > long.MaxValue / 1000 || amount < long.MinValue / 1000))
        {
            return false;
        }

        var milliseconds = seconds ? amount * 1000 : amount;
        if (unit is ExpiryUnit.UnixSeconds or ExpiryUnit.UnixMilliseconds)
        {
            expiresAt = milliseconds;
            return true;
        }

        if (milliseconds > long.MaxValue - now)
        {
            return false;
        }

        expiresAt = now + milliseconds;
        return true;
    }

    /// <summary>A SCAN or HSCAN cursor: an unsigned 64-bit decimal.</summary>
    public static bool TryCursor(ReadOnlySpan<byte> text, out ulong cursor) =>
        System.Buffers.Text.Utf8Parser.TryParse(text, out cursor, out var consumed) && consumed == text.Length;
}

/// <summary>How an expiry argument is expressed.</summary>
internal enum ExpiryUnit
{
    Seconds,
    Milliseconds,
    UnixSeconds,
    UnixMilliseconds,
}
