namespace Cubby.Text;

/// <summary>Error replies worded as Redis words them, so clients that match on them keep working.</summary>
public static class RedisErrors
{
    /// <summary>A command's arguments are not in a form it takes.</summary>
    public const string Syntax = "ERR syntax error";

    /// <summary>A SCAN-family cursor that is not an unsigned 64-bit number.</summary>
    public const string InvalidCursor = "ERR invalid cursor";

    /// <summary>A write refused because the memory limit is reached and nothing can be evicted.</summary>
    public const string OutOfMemory = "OOM command not allowed when used memory > 'maxmemory'.";

    /// <summary>A database other than 0 (there is one).</summary>
    public const string DbIndexOutOfRange = "ERR DB index is out of range";

    /// <summary>A command given too few or too many arguments.</summary>
    /// <param name="command">The command as the client spelled it, or <c>command|subcommand</c>.</param>
    /// <returns>The error.</returns>
    public static string WrongArity(string command) => $"ERR wrong number of arguments for '{command}' command";

    /// <summary>A container command's subcommand it does not know.</summary>
    /// <param name="subcommand">The subcommand as sent.</param>
    /// <param name="command">The container command, which names its HELP.</param>
    /// <returns>The error.</returns>
    public static string UnknownSubcommand(ReadOnlySpan<byte> subcommand, string command) =>
        $"ERR unknown subcommand '{Printable(subcommand)}'. Try {command} HELP.";

    /// <summary>A client-supplied argument made safe to echo back in an error: bounded, single-line.</summary>
    /// <param name="bytes">The argument.</param>
    /// <returns>At most 128 bytes of it as text, line breaks as spaces, "..." when cut.</returns>
    public static string Printable(ReadOnlySpan<byte> bytes)
    {
        const int Limit = 128;
        var text = System.Text.Encoding.UTF8.GetString(bytes[..Math.Min(bytes.Length, Limit)]);
        text = text.Replace('\r', ' ').Replace('\n', ' ');
        return bytes.Length > Limit ? text + "..." : text;
    }
}
