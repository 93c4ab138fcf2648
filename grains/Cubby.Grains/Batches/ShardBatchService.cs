using Cubby.Grains.Placement;
using Cubby.Grains.Tracking;
using Cubby.Sharding;
using Microsoft.Extensions.Logging;
using Orleans.Runtime.Services;

namespace Cubby.Grains.Batches;

/// <summary>
/// Answers <see cref="IShardBatchService"/> on this silo: each operation runs on its shard here in that shard's turn,
/// as the RESP door runs a command on a local shard, with the shard grain's own checks and calls
/// (<see cref="TypedCalls"/>). Nothing waits: a shard that is not open here is answered <see cref="ShardOperationStatus.NotHere"/>
/// and a failing operation <see cref="ShardOperationStatus.Failed"/>, for the client to call the shard grain instead.
/// </summary>
internal sealed class ShardBatchService(GrainId id, global::Orleans.Runtime.Silo silo, ILoggerFactory loggers, ShardCatalog catalog, ShardHomes homes)
    : GrainService(id, silo, loggers), IShardBatchService
{
    public ValueTask<ShardOperationResult[]> Run(ShardOperation[] operations, long writeDeadline) => Run(operations, writeDeadline, reader: -1, link: null);

    public ValueTask<ShardOperationResult[]> RunTracked(ShardOperation[] operations, long writeDeadline, INearCacheReader reader)
    {
        ArgumentNullException.ThrowIfNull(reader);
        if (catalog.Tracking is not { } tracking)
        {
            return Run(operations, writeDeadline, reader: -1, link: null);
        }

        var (number, link) = tracking.NumberOf(reader);
        link.Reading();
        return Run(operations, writeDeadline, number, link);
    }

    public ValueTask<NearCacheLease> Renew(INearCacheReader reader, NearCacheTerms terms)
    {
        ArgumentNullException.ThrowIfNull(reader);
        if (terms.Lease <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(terms), terms.Lease, "A near cache's lease must be longer than zero.");
        }

        var tracking = catalog.Tracking ?? throw new InvalidOperationException("This silo's shards keep no near caches.");

        // A silo that may not serve its shards must not let a near cache go on serving what it read from them either: no
        // renewal while fenced, and no lease past what is left of the fence's confirmation (docs/faults.md).
        if (catalog.Fence is { } fence)
        {
            fence.ThrowIfNotServing("near-cache leases");
            terms = terms with { Lease = TimeSpan.FromTicks(Math.Min(terms.Lease.Ticks, fence.Remaining.Ticks)) };
        }

        return ValueTask.FromResult(tracking.NumberOf(reader).Link.Renew(terms));
    }

    public ValueTask Release(INearCacheReader reader)
    {
        ArgumentNullException.ThrowIfNull(reader);
        catalog.Tracking?.LinkOf(reader)?.Release();
        return ValueTask.CompletedTask;
    }

    /// <summary>
    /// Runs the batch; <paramref name="reader"/> is the number of the near cache its tracked reads are for, or -1, and
    /// <paramref name="link"/> the link to it. Its writes wait for that near cache only when it takes values with
    /// changes (it then holds what it wrote when answered); otherwise the client drops what it kept of a key itself once
    /// its write is answered. Past <paramref name="writeDeadline"/> its writes are not run.
    /// </summary>
    private ValueTask<ShardOperationResult[]> Run(ShardOperation[] operations, long writeDeadline, int reader, NearCacheLink? link)
    {
        ArgumentNullException.ThrowIfNull(operations);
        var results = new ShardOperationResult[operations.Length];
        var late = CallDeadline.HasPassed(writeDeadline);
        UnsettledShards? unsettled = null;
        for (var i = 0; i < operations.Length; i++)
        {
            results[i] = late && operations[i] is { Changes: true }
                ? ShardOperationResult.Failed
                : RunOne(operations[i], reader, ref unsettled);
        }

        return unsettled is null ? ValueTask.FromResult(results) : AfterSettlingAsync(operations, results, unsettled, link);
    }

    /// <summary>
    /// Answers once every shard the batch ran on settled what it wrote (and what it read; <see cref="Shard.WhenSettledAsync"/>):
    /// the operations of a shard whose replicas failed it are answered as failed, for the client to call the grain.
    /// </summary>
    private static async ValueTask<ShardOperationResult[]> AfterSettlingAsync(ShardOperation[] operations, ShardOperationResult[] results, UnsettledShards shards, NearCacheLink? writer)
    {
        for (var s = 0; s < shards.Count; s++)
        {
            var (shard, wrote) = shards[s];
            try
            {
                await shard.WhenSettledAsync(wrote, writer).ConfigureAwait(true);
            }
            catch (InvalidOperationException)
            {
                for (var i = 0; i < operations.Length; i++)
                {
                    if (operations[i]?.Slot == shard.Slot && results[i].Status == ShardOperationStatus.Done)
                    {
                        results[i] = ShardOperationResult.Failed;
                    }
                }
            }
        }

        return results;
    }

    /// <summary>
    /// The shards open here, and those whose home is here though not yet active: a call for one of those activates it
    /// through its grain, which places it here, and the batches after find it.
    /// </summary>
    public ValueTask<int[]> Slots()
    {
        var slots = new HashSet<int>(catalog.OpenSlots());
        var ranking = homes.Ranking();
        for (var slot = 0; slot < catalog.SlotCount && !homes.Leaving; slot++)
        {
            if (ranking.HomeOf(slot).Equals(homes.Self))
            {
                slots.Add(slot);
            }
        }

        return ValueTask.FromResult(slots.Order().ToArray());
    }

    private ShardOperationResult RunOne(ShardOperation operation, int reader, ref UnsettledShards? unsettled)
    {
        if (operation is null || operation.Slot < 0 || operation.Slot >= catalog.SlotCount)
        {
            return ShardOperationResult.Failed;
        }

        if (catalog.Find(operation.Slot) is not { } shard || !shard.TryEnterTurn())
        {
            return ShardOperationResult.NotHere;
        }

        try
        {
            TypedCalls.CheckKey(catalog, operation.Slot, operation.Key);
            return operation.Kind switch
            {
                ShardOperationKind.Get => new(ShardOperationStatus.Done, Entry: TypedCalls.Get(shard, operation.Key, operation.Slide)),
                ShardOperationKind.TrackedGet => TrackedGet(shard, operation, reader),
                ShardOperationKind.Set => Set(shard, operation, reader),
                ShardOperationKind.Remove => new(ShardOperationStatus.Done, Found: shard.Remove(operation.Key)),
                ShardOperationKind.Refresh => new(ShardOperationStatus.Done, Found: shard.Refresh(operation.Key)),
                ShardOperationKind.TimeToLive => new(ShardOperationStatus.Done, TimeToLive: TypedCalls.TimeToLive(shard, operation.Key)),
                _ => ShardOperationResult.Failed,
            };
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            // The shard grain's call gives the caller this error with its type and message; a batch carries only that it failed.
            return ShardOperationResult.Failed;
        }
        finally
        {
            shard.ExitTurn();
            var wrote = operation.Kind is ShardOperationKind.Set or ShardOperationKind.Remove;
            if (shard.MustSettle(wrote))
            {
                (unsettled ??= new()).Note(shard, wrote);
            }
        }
    }

    /// <summary>
    /// A read whose key's next change <paramref name="reader"/> is told of, remembered in the read's turn when the entry
    /// is there. One that cannot be remembered is answered as failed, so the client reads it as a single call and keeps
    /// nothing.
    /// </summary>
    private static ShardOperationResult TrackedGet(Shard shard, ShardOperation operation, int reader)
    {
        var entry = TypedCalls.Get(shard, operation.Key, operation.Slide);
        return entry is null || (reader >= 0 && shard.TrackRead(operation.Key, reader))
            ? new(ShardOperationStatus.Done, Entry: entry)
            : ShardOperationResult.Failed;
    }

    /// <summary>A write; when the batch's near cache holds the key, it is answered with the new entry rather than sent it.</summary>
    private ShardOperationResult Set(Shard shard, ShardOperation operation, int reader)
    {
        var value = operation.Value ?? throw new ArgumentException("A write needs a value.", nameof(operation));
        TypedCalls.CheckValue(catalog, value);
        shard.WritesFor(reader);
        WriteOutcome outcome;
        (NearCachePosition At, ShardEntry Entry)? copy;
        try
        {
            outcome = TypedCalls.Set(shard, operation.Key, value, operation.Expiry, operation.Flags, operation.Condition);
        }
        finally
        {
            copy = shard.TakeWriterCopy();
        }

        return copy is var (at, entry)
            ? new(ShardOperationStatus.Done, Entry: entry, Outcome: outcome, WriterCopyAt: at)
            : new(ShardOperationStatus.Done, Outcome: outcome);
    }
}
