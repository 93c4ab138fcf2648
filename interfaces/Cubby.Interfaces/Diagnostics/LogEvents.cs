namespace Cubby.Diagnostics;

/// <summary>
/// Every log event id Cubby writes, in one place (as Orleans' <c>ErrorCode</c> does), so each id is unique across the
/// project and operators can filter on it: 1000s the RESP front door, 2000s silo diagnostics, 3000s shard grains and
/// placement, 6000s the client.
/// </summary>
public static class LogEvents
{
    /// <summary>A RESP client connected.</summary>
    public const int ClientConnected = 1001;

    /// <summary>A RESP client disconnected.</summary>
    public const int ClientDisconnected = 1002;

    /// <summary>A RESP connection was closed after a protocol error.</summary>
    public const int ProtocolError = 1003;

    /// <summary>A command failed unexpectedly; the client got an error reply and the connection stays open.</summary>
    public const int CommandFailed = 1004;

    /// <summary>A RESP client was disconnected unanswered because a shard could not acknowledge its writes.</summary>
    public const int ReplicationFailed = 1005;

    /// <summary>A published message or a PUBSUB query did not reach another silo; its subscribers there missed it.</summary>
    public const int PubSubPeerUnreachable = 1006;

    /// <summary>A pub/sub subscriber was disconnected: more of its messages waited than its limit allows.</summary>
    public const int SubscriberFellBehind = 1007;

    /// <summary>Sampling the silo's activity for the dashboard failed.</summary>
    public const int SamplingFailed = 2001;

    /// <summary>A shard could not register its full-sweep reminder.</summary>
    public const int SweepReminderFailed = 3001;

    /// <summary>A shard deactivated without migrating and dropped its entries.</summary>
    public const int ShardDropped = 3002;

    /// <summary>A shard is migrating with its entries.</summary>
    public const int ShardMigrating = 3003;

    /// <summary>Shards were sent to their home silos after a cluster change.</summary>
    public const int ShardsSentHome = 3010;

    /// <summary>Sending shards home failed.</summary>
    public const int SendingHomeFailed = 3011;

    /// <summary>A stopping silo moved its shards off.</summary>
    public const int ShardsEvacuated = 3012;

    /// <summary>A stopping silo could not tell another silo that it is departing.</summary>
    public const int DepartureNotDelivered = 3013;

    /// <summary>A primary shard sent a snapshot of itself to a new replica.</summary>
    public const int ReplicaSnapshotSent = 3020;

    /// <summary>A primary shard could not reach a replica; its writes wait.</summary>
    public const int ReplicaUnreachable = 3021;

    /// <summary>A primary shard learned that a newer primary holds its replicas, and stopped acknowledging writes.</summary>
    public const int ShardFenced = 3022;

    /// <summary>This silo could not confirm it is still a member of the cluster, and stopped serving its shards.</summary>
    public const int SiloFenced = 3026;

    /// <summary>This silo confirmed it is a member of the cluster again, and serves its shards.</summary>
    public const int SiloUnfenced = 3027;

    /// <summary>This silo learned the cluster declared it dead, and serves no shard again.</summary>
    public const int SiloDeclaredDead = 3028;

    /// <summary>A round confirming this silo's membership failed (it confirmed nothing).</summary>
    public const int FenceRoundFailed = 3029;

    /// <summary>A shard's new activation took over the replica its silo kept, after its primary's silo died.</summary>
    public const int ReplicaPromoted = 3023;

    /// <summary>A shard's new activation took over the replica another silo kept.</summary>
    public const int ReplicaHandedOver = 3024;

    /// <summary>A shard's new activation could not ask a silo for the replica it keeps.</summary>
    public const int ReplicaNotAsked = 3025;

    /// <summary>A silo's shards could not tell another silo's tracking connections that keys changed; they are told every key did.</summary>
    public const int TrackingReaderUnreachable = 3030;

    /// <summary>A silo's shards could not tell a client's near cache that keys changed; it drops what it read through that silo.</summary>
    public const int NearCacheReaderUnreachable = 3031;

    /// <summary>A silo could not tell another which key prefixes its BCAST tracking connections listen to.</summary>
    public const int BroadcastPrefixesNotTold = 3032;

    /// <summary>A held shard's transaction chain broke after it; it asks the transaction's last shard whether to keep what it ran.</summary>
    public const int TransactionChainBroken = 3033;

    /// <summary>A held shard could not learn a transaction's outcome in time and rolled its keys back.</summary>
    public const int TransactionOutcomeUnknown = 3034;

    /// <summary>A shard resumed from a replica holding a transaction's changes before its outcome; it kept or put back its keys as the outcome said.</summary>
    public const int TransactionInherited = 3035;

    /// <summary>A transaction's last shard got no answer from the silo running it and decided to roll the transaction back.</summary>
    public const int TransactionUnanswered = 3036;

    /// <summary>A silo could not write a shard to its persistence folder; the shard's entries stay in memory only.</summary>
    public const int ShardNotSaved = 3040;

    /// <summary>A silo read the shards in its persistence folder as it started.</summary>
    public const int ShardsLoaded = 3041;

    /// <summary>A file in a silo's persistence folder could not be read whole; what it held is not loaded.</summary>
    public const int ShardFileUnreadable = 3042;

    /// <summary>A silo could not write its changes file; the changes stay in memory only until a snapshot holds them.</summary>
    public const int ChangesNotWritten = 3043;

    /// <summary>A file in a silo's persistence folder that is no longer needed could not be deleted.</summary>
    public const int ShardFileNotDeleted = 3044;

    /// <summary>A silo began a new changes file, writing every shard it holds whole.</summary>
    public const int ChangesFileBegun = 3045;

    /// <summary>A silo could not make a new changes file; shards are kept on disk only when written whole.</summary>
    public const int ChangesFileNotBegun = 3046;

    /// <summary>The client connected to the cluster through a gateway.</summary>
    public const int GatewayConnected = 6001;

    /// <summary>The client could not connect to a gateway yet and tries again.</summary>
    public const int GatewayConnectRetrying = 6002;

    /// <summary>Calls cannot be coalesced: the Orleans client's list of live gateways cannot be read.</summary>
    public const int CoalescingUnavailable = 6003;

    /// <summary>The client learned a new list of the cluster's gateways.</summary>
    public const int GatewaysLearned = 6004;

    /// <summary>The client could not ask the cluster for its gateways and uses its configured endpoints beside the learned ones.</summary>
    public const int GatewaysDoubted = 6005;

    /// <summary>HybridCache passed a key over (empty, reserved for tags, or over MaximumKeyLength): its factory ran uncached.</summary>
    public const int HybridKeyPassedOver = 6010;

    /// <summary>HybridCache did not cache a value over MaximumPayloadBytes.</summary>
    public const int HybridPayloadTooLarge = 6011;
}
