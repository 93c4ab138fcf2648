namespace Cubby.Grains.Commands;

/// <summary>Error replies, worded as Redis words them so clients that match on them keep working.</summary>
internal static class ErrorText
{
    public const string Syntax = "ERR syntax error";
    public const string NotInteger = "ERR value is not an integer or out of range";
    public const string NotFloat = "ERR value is not a valid float";
    public const string Overflow = "ERR increment or decrement would overflow";
    public const string NotFinite = "ERR increment would produce NaN or Infinity";
    public const string OffsetOutOfRange = "ERR offset is out of range";
    public const string InvalidCursor = "ERR invalid cursor";
    public const string NoAuth = "NOAUTH Authentication required.";
    public const string WrongPass = "WRONGPASS invalid username-password pair or user is disabled.";
    public const string OutOfMemory = "OOM command not allowed when used memory > 'maxmemory'.";
    public const string DbIndexOutOfRange = "ERR DB index is out of range";
    public const string ExpireOptionsNxXx = "ERR NX and XX, GT or LT options at the same time are not compatible";
    public const string ExpireOptionsGtLt = "ERR GT and LT options at the same time are not compatible";
    public const string NoSuchKey = "ERR no such key";
    public const string SameObject = "ERR source and destination objects are the same";
    public const string EmptyKey = "ERR empty keys are not allowed";
    public const string NoPasswordConfigured = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?";
    public const string ClientNameInvalid = "ERR Client names cannot contain spaces, newlines or special characters.";

    public const string MultiNested = "ERR MULTI calls can not be nested";
    public const string ExecWithoutMulti = "ERR EXEC without MULTI";
    public const string DiscardWithoutMulti = "ERR DISCARD without MULTI";
    public const string ClusterDisabled = "ERR This instance has cluster support disabled";
    public const string WatchInsideMulti = "ERR WATCH inside MULTI is not allowed";
    public const string ExecAbort = "EXECABORT Transaction discarded because of previous errors.";

    public const string CrossShard = "CROSSSLOT keys of an atomic multi-key command must be in shards held by one silo; use a {hash tag} to keep them in one shard";

    public static string WaitedPastCallTimeout(TimeSpan timeout) =>
        $"CLUSTERDOWN the command waited at this silo longer than Cubby:Clustering:CallTimeout ({timeout.TotalMilliseconds:0} ms) behind one before it, so it was not run";

    public static string ShardUnreachable(int slot, string reason) =>
        $"CLUSTERDOWN shard {slot} did not answer within Cubby:Clustering:CallTimeout: {reason}";

    public static string TransactionTooLarge(long limit) =>
        $"ERR the transaction's queued commands are over {limit} bytes (Cubby:MaxRequestBytes)";

    public static string TransactionNotHeld(string reason) => $"ERR the transaction ran nothing: its shards could not be held: {reason}";

    public static string TransactionRolledBack(string reason) => $"TRYAGAIN the transaction was rolled back, nothing it ran is kept: {reason}";

    public static string TransactionOutcomeUnknown(string reason) => $"ERR the transaction's outcome could not be learned, what it ran may or may not be kept: {reason}";

    public static string NotInSubscribedContext(string command) =>
        $"ERR Can't execute '{command}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context";

    public static string WrongArity(string command) => $"ERR wrong number of arguments for '{command}' command";

    public static string InvalidExpireTime(string command) => $"ERR invalid expire time in '{command}' command";

    public static string ValueTooLarge(int limit) => $"ERR string exceeds maximum allowed size ({limit} bytes, Cubby:MaxValueBytes)";

    public static string KeyTooLong(int length, int limit) => $"ERR key is {length} bytes, over the limit of {limit} bytes (Cubby:MaxKeyBytes)";

    public static string UnknownSubcommand(ReadOnlySpan<byte> subcommand, string command) =>
        $"ERR unknown subcommand '{Printable(subcommand)}'. Try {command} HELP.";

    /// <summary>A client-supplied argument made safe to echo back in an error: bounded, single-line.</summary>
    public static string Printable(ReadOnlySpan<byte> bytes)
    {
        const int Limit = 128;
        var text = System.Text.Encoding.UTF8.GetString(bytes[..Math.Min(bytes.Length, Limit)]);
        text = text.Replace('\r', ' ').Replace('\n', ' ');
        return bytes.Length > Limit ? text + "..." : text;
    }
}
