using System.Buffers;
using Cubby.Diagnostics;
using Cubby.Grains.Commands;
using Cubby.Grains.Persistence;
using Cubby.Grains.Placement;
using Cubby.Grains.Replication;
using Cubby.Grains.Storage;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Text;
using Microsoft.Extensions.Logging;
using Orleans.Runtime;
using Orleans.Runtime.Placement;

namespace Cubby.Grains;

/// <summary>
/// The Orleans grain of one shard. It holds the shard's <see cref="Shard"/> (the entries) for as long as it is active:
/// never collected while its silo runs, carried along when it migrates to another silo (its entries in
/// <see cref="MigrationChunkBytes"/> chunks), and moved off its silo before that silo stops. Calls run one turn at a
/// time, each in the shard's turn (<see cref="Shard.TakeTurn"/>), the turn that also admits the local RESP front door
/// (see <see cref="Shard.TryEnterTurn"/>).
/// </summary>
[KeepAlive]
[ShardPlacement]
[GrainType(GrainTypeName)]
internal sealed partial class ShardGrain(
    ShardCatalog catalog,
    ShardHomes homes,
    ILogger<ShardGrain> logger,
    RelayedCommandRunner commands,
    ShardReplicas replicas,
    ShardResumption resumption,
    ShardReplicaSilos replicaSilos,
    ReplicaLinks replicaLinks,
    ShardFiles files) : Grain, IShardGrain, IShardCommands, IGrainMigrationParticipant, IRemindable, IDisposable
{
    /// <summary>The grain type's name, stable across versions: the directory and reminders know shards by it.</summary>
    public const string GrainTypeName = "cubby-shard";

    /// <summary>Entry bytes per chunk of a migrating shard.</summary>
    public const int MigrationChunkBytes = 1 << 20;

    /// <summary>
    /// How long a shard that arrived by migration refuses to move again. Orleans' receiving silo acknowledges a batch
    /// of migrating grains only once each has finished activating, and a grain that starts moving on meanwhile never
    /// does: two silos that disagree about a shard's home during a membership change (a silo joining and soon leaving)
    /// each wait for the other's acknowledgement, and every call to the shards involved stalls until the stopping
    /// silo's shutdown times out (30 s; docs/orleans-cluster.md).
    /// </summary>
    internal static readonly TimeSpan ArrivalSettle = TimeSpan.FromSeconds(5);

    /// <summary>
    /// How long a moving shard waits for its replicas to apply the writes its callers still wait for, before it fails
    /// them: replicas in step apply within milliseconds, and one that does not answer holds writes until Orleans
    /// declares its silo dead, longer than a move should wait.
    /// </summary>
    internal static readonly TimeSpan MoveDrain = TimeSpan.FromSeconds(2);

    private const string SweepReminder = "sweep";
    private const string ChunkCountKey = "cubby.chunks";
    private const string EpochKey = "cubby.epoch";

    private Shard? _shard;
    private ShardReplicator? _replicator;

    /// <summary>When this activation arrived by migration (a timestamp of the real clock); 0 when it did not.</summary>
    private long _arrivedAt;

    /// <summary>This activation's epoch as primary; on arrival by migration, the epoch of the one it came from.</summary>
    private long _epoch;

    /// <summary>Whether this activation is moving to another silo with its entries.</summary>
    private bool _departing;

    /// <summary>The sequence this activation began at when it began empty; null when it began with entries.</summary>
    private long? _beganEmptyAt;

    private int Id => checked((int)this.GetPrimaryKeyLong());

    private Shard Entries => _shard ?? throw new InvalidOperationException($"Shard {Id} is not active.");

    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        // Each primary's epoch is above its predecessor's, so replicas refuse whichever of the two is older.
        var epoch = Math.Max(homes.MembershipVersion, _epoch + 1);
        if (_shard is not null)
        {
            // Arrived with its entries: a replica this silo kept of it is superseded.
            replicas.Promote(Id, epoch)?.Dispose();
        }
        else if (catalog.Options.Replicas > 0 || files.Enabled)
        {
            // Activated without its entries: its primary's silo died (or the silo it was moving to), or the cluster
            // started again, and a replica, or a copy loaded from disk, may be kept here or on another silo.
            (_shard, epoch) = await resumption.ResumeAsync(Id, epoch).ConfigureAwait(true);
        }

        _epoch = epoch;
        _shard ??= catalog.CreateDetached(Id);
        if (_shard.PendingTransaction is { } held)
        {
            await SettleInheritedAsync(_shard, held).ConfigureAwait(true);
        }

        _beganEmptyAt = _shard.Count == 0 ? _shard.SealedSequence : null;
        files.Began(Id, epoch, _shard);
        catalog.Attach(Id, _shard);
        if (catalog.Options.Replicas > 0)
        {
            _replicator = ShardReplicator.Start(_shard, catalog.Options.Replicas, epoch, homes, replicaSilos, replicaLinks, logger);
        }

        // A reminder-table round trip (PostgreSQL in Postgres mode, or a reminder service still starting): the shard
        // serves calls meanwhile instead of holding its first call until the table answers.
        _ = EnsureSweepReminderAsync();
    }

    public override async Task OnDeactivateAsync(DeactivationReason reason, CancellationToken cancellationToken)
    {
        var migrating = reason.ReasonCode == DeactivationReasonCode.Migrating;
        var evacuating = reason.ReasonCode == DeactivationReasonCode.ShuttingDown && homes.AnyOtherHome();
        if (evacuating)
        {
            // Carries the entries to another silo instead of dropping them with this one. The hint names the home among
            // the silos staying: a shard that arrived after the evacuation must not be placed back on this silo.
            RequestContext.Set(IPlacementDirector.PlacementHintKey, homes.HomeOf(Id));
            this.MigrateOnIdle();
            migrating = true;
        }

        if (_shard is { } shard)
        {
            shard.Close();
            catalog.Detach(Id, shard);
            if (migrating)
            {
                _departing = true;
                if ((evacuating || homes.Leaving) && files.Enabled)
                {
                    // Written here too: the silo it moves to may be stopping as well (every silo stopped at once) and
                    // keep it nowhere. A copy it does keep stands at a later epoch, so a restart resumes from that one.
                    await SaveUnlessEmptyAsync(shard).ConfigureAwait(true);
                }
                else
                {
                    files.Forget(Id, _epoch);
                }

                // Before its new home answers anyone: near caches that read here stop serving what they read.
                await shard.ForgetReadersAsync().ConfigureAwait(true);
            }
            else
            {
                if (reason.ReasonCode != DeactivationReasonCode.ShuttingDown)
                {
                    LogDropped(logger, Id, shard.Count, reason.ToString());
                }
                else if (files.Enabled)
                {
                    // The last silo stopping: its shards go to disk instead of to another silo.
                    await SaveUnlessEmptyAsync(shard).ConfigureAwait(true);
                }

                shard.Dispose();
                _shard = null;
            }
        }

        if (_replicator is { } replicator)
        {
            _replicator = null;
            await replicator.StopAsync(migrating ? MoveDrain : TimeSpan.Zero).ConfigureAwait(true);
            replicator.Dispose();
        }
    }

    /// <summary>
    /// Writes the shard as the silo stops, unless it began empty here and took no change since: it may have activated
    /// while every silo stopped, finding no copy, and an empty copy at its later epoch would stand for the shard.
    /// </summary>
    private async Task SaveUnlessEmptyAsync(Shard shard)
    {
        if (shard.Count > 0 || _beganEmptyAt != shard.SealedSequence)
        {
            await files.SaveAsync(Id, _epoch, shard).ConfigureAwait(true);
        }
    }

    public void OnDehydrate(IDehydrationContext dehydrationContext)
    {
        if (_shard is not { } shard)
        {
            return;
        }

        var cursor = 0;
        var chunks = 0;
        var chunk = new ArrayBufferWriter<byte>();
        while (shard.WriteChunk(ref cursor, MigrationChunkBytes, chunk))
        {
            dehydrationContext.AddBytes(ChunkKey(chunks++), chunk.WrittenSpan);
            chunk.ResetWrittenCount();
        }

        dehydrationContext.TryAddValue(ChunkCountKey, chunks);
        dehydrationContext.TryAddValue(EpochKey, _epoch);
        LogDehydrated(logger, Id, shard.Count, chunks);
        catalog.CountMigratedOut();
        _shard = null;
        Depart(shard);
    }

    public void OnRehydrate(IRehydrationContext rehydrationContext)
    {
        var shard = catalog.CreateDetached(Id);
        if (rehydrationContext.TryGetValue<int>(ChunkCountKey, out var chunks))
        {
            for (var i = 0; i < chunks; i++)
            {
                if (rehydrationContext.TryGetBytes(ChunkKey(i), out var chunk))
                {
                    shard.Install(chunk.IsSingleSegment ? chunk.FirstSpan : chunk.ToArray());
                }
            }
        }

        _shard = shard;
        _epoch = rehydrationContext.TryGetValue<long>(EpochKey, out var epoch) ? epoch : 0;
        _arrivedAt = TimeProvider.System.GetTimestamp();
        catalog.CountMigratedIn();
    }

    /// <summary>
    /// Orleans disposes an activation that ends without finishing a move: one that began to move but never dehydrated
    /// (no silo took it), or one that arrived with entries and failed to activate (its directory registration failed when
    /// a silo died): neither ran the step that would have released its entries.
    /// </summary>
    public void Dispose()
    {
        if (_shard is not { } shard)
        {
            return;
        }

        _shard = null;
        if (_departing)
        {
            Depart(shard);
        }
        else
        {
            catalog.Detach(Id, shard);
            shard.Dispose();
        }
    }

    /// <summary>
    /// Releases the entries of a shard that left this silo, keeping them as a frozen copy where replicas are kept: a
    /// move can be lost on the way (its new home fails to activate it, or dies), and the shard then resumes from the
    /// freshest copy, which only this one is sure to be (<see cref="ShardReplicas.KeepDeparted"/>).
    /// </summary>
    private void Depart(Shard shard)
    {
        if (catalog.Options.Replicas > 0)
        {
            replicas.KeepDeparted(Id, _epoch, shard);
        }
        else
        {
            shard.Dispose();
        }
    }

    public Task ReceiveReminder(string reminderName, TickStatus status)
    {
        if (reminderName == SweepReminder)
        {
            Entries.RemoveAllExpired();
        }

        return Task.CompletedTask;
    }

    public ValueTask<RelayedReply> Run(RelayedCommand command)
    {
        var shard = Entries;
        var reply = commands.Run(shard, command, out var wrote);
        return AfterSettling(shard, reply, wrote);
    }

    public ValueTask<ShardEntry?> Get(byte[] key, bool slide)
    {
        CheckKey(key);
        var shard = Entries;
        ShardEntry? result;
        using (shard.TakeTurn())
        {
            result = TypedCalls.Get(shard, key, slide);
        }

        return AfterSettling(shard, result, wrote: false);
    }

    public ValueTask<ShardEntry?[]> GetMany(byte[][] keys, bool slide)
    {
        CheckKeys(keys);
        var shard = Entries;
        var entries = new ShardEntry?[keys.Length];
        using (shard.TakeTurn())
        {
            for (var i = 0; i < keys.Length; i++)
            {
                entries[i] = TypedCalls.Get(shard, keys[i], slide);
            }
        }

        return AfterSettling(shard, entries, wrote: false);
    }

    public ValueTask<WriteOutcome> Set(byte[] key, byte[] value, ShardExpiry expiry, CacheEntryFlags flags, ShardWriteCondition condition)
    {
        CheckKey(key);
        CheckValue(value);
        var shard = Entries;
        WriteOutcome result;
        using (shard.TakeTurn())
        {
            result = TypedCalls.Set(shard, key, value, expiry, flags, condition);
        }

        return AfterSettling(shard, result, wrote: true);
    }

    public ValueTask<WriteOutcome[]> SetMany(byte[][] keys, byte[][] values, ShardExpiry expiry, CacheEntryFlags flags)
    {
        if (keys.Length != values.Length)
        {
            throw new ArgumentException($"SetMany needs one value per key, but got {keys.Length} keys and {values.Length} values.", nameof(values));
        }

        CheckKeys(keys);
        foreach (var value in values)
        {
            CheckValue(value);
        }

        var shard = Entries;
        var outcomes = new WriteOutcome[keys.Length];
        using (shard.TakeTurn())
        {
            for (var i = 0; i < keys.Length; i++)
            {
                outcomes[i] = TypedCalls.Set(shard, keys[i], values[i], expiry, flags, ShardWriteCondition.Always);
            }
        }

        return AfterSettling(shard, outcomes, wrote: true);
    }

    public ValueTask<bool> Refresh(byte[] key)
    {
        CheckKey(key);
        var shard = Entries;
        bool result;
        using (shard.TakeTurn())
        {
            result = shard.Refresh(key);
        }

        return AfterSettling(shard, result, wrote: false);
    }

    public ValueTask<int> Remove(byte[][] keys)
    {
        CheckKeys(keys);
        var shard = Entries;
        var removed = 0;
        using (shard.TakeTurn())
        {
            foreach (var key in keys)
            {
                removed += shard.Remove(key) ? 1 : 0;
            }
        }

        return AfterSettling(shard, removed, wrote: true);
    }

    public ValueTask<ShardEntryCopy?> Export(byte[] key)
    {
        CheckKey(key);
        var shard = Entries;
        ShardEntryCopy? result;
        using (shard.TakeTurn())
        {
            shard.ThrowIfHoldEnded();
            result = shard.Export(key);
        }

        return AfterSettling(shard, result, wrote: false);
    }

    public ValueTask<bool> Import(byte[] key, ShardEntryCopy entry, bool replace)
    {
        CheckKey(key);
        ArgumentNullException.ThrowIfNull(entry);
        CheckValue(entry.Value);
        var shard = Entries;
        SetStatus status;
        using (shard.TakeTurn())
        {
            shard.ThrowIfHoldEnded();
            status = shard.Import(key, entry, replace);
        }

        return status == SetStatus.OutOfMemory ? throw new Sharding.CubbyOutOfMemoryException() : AfterSettling(shard, status != SetStatus.NotStored, wrote: true);
    }

    public ValueTask<long> TimeToLive(byte[] key)
    {
        CheckKey(key);
        var shard = Entries;
        long result;
        using (shard.TakeTurn())
        {
            result = TypedCalls.TimeToLive(shard, key);
        }

        return AfterSettling(shard, result, wrote: false);
    }

    public ValueTask<long> Increment(byte[] key, long delta)
    {
        CheckKey(key);
        var shard = Entries;
        UpdateStatus status;
        long result;
        using (shard.TakeTurn())
        {
            status = shard.IncrementBy(key, delta, out result);
        }

        return status switch
        {
            UpdateStatus.Ok => AfterSettling(shard, result, wrote: true),
            UpdateStatus.NotInteger => throw new InvalidOperationException("The value is not an integer or out of range."),
            UpdateStatus.Overflow => throw new InvalidOperationException("The increment would overflow."),
            _ => throw new Sharding.CubbyOutOfMemoryException(),
        };
    }

    public ValueTask<byte[][]> Keys(byte[]? pattern, string? type = null)
    {
        EntryKind? kind = null;
        if (type is not null)
        {
            kind = EntryKinds.TryParse(type, out var parsed) ? parsed : throw new ArgumentException($"Cubby stores no values of type '{type}'.", nameof(type));
        }

        var sink = new KeyCollector(pattern);
        Entries.VisitKeys(ref sink, kind);
        return ValueTask.FromResult(sink.Keys.ToArray());
    }

    public ValueTask<byte[]?> RandomKey() => ValueTask.FromResult(Entries.RandomKey());

    public ValueTask<ShardCounts> Count()
    {
        var shard = Entries;
        return ValueTask.FromResult(new ShardCounts(shard.Count, shard.CountWithExpiry()));
    }

    public ValueTask<int> Clear()
    {
        var shard = Entries;
        var cleared = shard.Clear();
        shard.SealPendingChanges();
        return AfterSettling(shard, cleared, wrote: true);
    }

    public Task<bool> Save() => files.SaveAsync(Id, _epoch, Entries);

    public ValueTask<bool> MoveHome()
    {
        var home = homes.HomeOf(Id);
        if (home.Equals(homes.Self) || Settling)
        {
            return ValueTask.FromResult(false);
        }

        RequestContext.Set(IPlacementDirector.PlacementHintKey, home);
        this.MigrateOnIdle();
        return ValueTask.FromResult(true);
    }

    /// <summary>Whether this shard arrived by migration within <see cref="ArrivalSettle"/>; the silo asks again later.</summary>
    private bool Settling => _arrivedAt != 0 && TimeProvider.System.GetElapsedTime(_arrivedAt) < ArrivalSettle;

    public ValueTask<string> Locate() => ValueTask.FromResult(homes.Self.Endpoint.ToString());

    // Not bound to the activation's token, which only covers activating: the registration outlives it.
    private async Task EnsureSweepReminderAsync()
    {
        try
        {
            var interval = catalog.Options.FullSweepInterval;
            if (await this.GetReminder(SweepReminder).ConfigureAwait(true) is null)
            {
                await this.RegisterOrUpdateReminder(SweepReminder, interval, interval).ConfigureAwait(true);
            }
        }
        catch (Exception exception)
        {
            // Without reminders the active expiry cycle still removes expired entries; only the full sweep is missing.
            LogNoSweepReminder(logger, exception, Id);
        }
    }

    /// <summary>
    /// Answers <paramref name="result"/> of a call that <paramref name="wrote"/> or only read once the shard settled
    /// every change made so far, this call's included (<see cref="Shard.WhenSettledAsync"/>): nothing it wrote, or read, is answered before it would survive this silo,
    /// or while a near cache may serve what it replaced.
    /// </summary>
    private static ValueTask<T> AfterSettling<T>(Shard shard, T result, bool wrote)
    {
        var settled = shard.WhenSettledAsync(wrote);
        return settled.IsCompletedSuccessfully ? ValueTask.FromResult(result) : AwaitSettling(settled, result);

        static async ValueTask<T> AwaitSettling(ValueTask settled, T result)
        {
            await settled.ConfigureAwait(true);
            return result;
        }
    }

    private void CheckKeys(byte[][] keys)
    {
        ArgumentNullException.ThrowIfNull(keys);
        foreach (var key in keys)
        {
            CheckKey(key);
        }
    }

    private void CheckKey(byte[] key) => TypedCalls.CheckKey(catalog, Id, key);

    private void CheckValue(byte[] value) => TypedCalls.CheckValue(catalog, value);

    private static string ChunkKey(int index) => "cubby.chunk." + index.ToString(System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>Collects keys matching a pattern inside the shard's turn.</summary>
    private struct KeyCollector(byte[]? pattern) : IKeySink
    {
        public List<byte[]> Keys { get; } = [];

        public readonly void Add(ReadOnlySpan<byte> key)
        {
            if (pattern is null || GlobPattern.IsMatch(pattern, key))
            {
                Keys.Add(key.ToArray());
            }
        }
    }

    [LoggerMessage(EventId = LogEvents.SweepReminderFailed, Level = LogLevel.Warning, Message = "Shard {Shard} could not register its full-sweep reminder; expired entries are still removed by the active expiry cycle and on access")]
    private static partial void LogNoSweepReminder(ILogger logger, Exception exception, int shard);

    [LoggerMessage(EventId = LogEvents.ShardDropped, Level = LogLevel.Warning, Message = "Shard {Shard} deactivated without migrating ({Reason}); its {Entries} entries were dropped")]
    private static partial void LogDropped(ILogger logger, int shard, int entries, string reason);

    [LoggerMessage(EventId = LogEvents.ShardMigrating, Level = LogLevel.Debug, Message = "Shard {Shard} is migrating with {Entries} entries in {Chunks} chunks")]
    private static partial void LogDehydrated(ILogger logger, int shard, int entries, int chunks);
}
