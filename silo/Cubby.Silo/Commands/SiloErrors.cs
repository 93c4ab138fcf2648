namespace Cubby.Silo.Commands;

/// <summary>The front door's own error replies (connections, transactions, routing), worded as Redis words them where Redis has them.</summary>
internal static class SiloErrors
{
    public const string NoAuth = "NOAUTH Authentication required.";

    public const string WrongPass = "WRONGPASS invalid username-password pair or user is disabled.";

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
}
