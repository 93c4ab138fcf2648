namespace Cubby.Silo.Commands;

/// <summary>The sets of Redis command flags COMMAND reports for the commands the front door runs itself (the shards' commands carry their own).</summary>
internal static class DoorCommandFlags
{
    public static readonly string[] Read = ["readonly", "fast"];
    public static readonly string[] ReadSlow = ["readonly"];
    public static readonly string[] WriteSlow = ["write"];
    public static readonly string[] Connection = ["fast", "no-auth"];
    public static readonly string[] Admin = ["loading", "stale"];
    public static readonly string[] Clock = ["random", "loading", "stale", "fast"];
    public static readonly string[] Transaction = ["noscript", "loading", "stale", "fast", "allow_busy"];
    public static readonly string[] TransactionSlow = ["noscript", "loading", "stale", "skip_slowlog"];
    public static readonly string[] Subscription = ["pubsub", "noscript", "loading", "stale"];
    public static readonly string[] Publish = ["pubsub", "loading", "stale", "fast"];
    public static readonly string[] PubSubQuery = ["pubsub", "loading", "stale"];
}
