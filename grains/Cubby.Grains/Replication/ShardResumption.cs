using Cubby.Diagnostics;
using Cubby.Grains.Placement;
using Microsoft.Extensions.Logging;

namespace Cubby.Grains.Replication;

/// <summary>
/// Gives a shard that activates without its entries (its primary's silo died, or the silo it was migrating to did) the
/// freshest replica any silo kept of it. The silo ranked next usually keeps it, but a shard that was moving, or a
/// ranking that changed since, can leave the freshest copy elsewhere, so every shard-hosting silo is asked where its
/// replica stands (<see cref="ReplicaPosition"/>) and the greatest is taken: this silo's own by promotion, another's by
/// hand-over (a copy: the giving silo keeps it until the new primary's replicas are in step). Either way the silo that
/// gave it up fences primaries older than the new one.
/// </summary>
internal sealed partial class ShardResumption(ShardReplicas replicas, ShardReplicaSilos silos, ShardHomes homes, ShardCatalog catalog, ILogger<ShardResumption> logger)
{
    /// <summary>
    /// The entries <paramref name="slot"/> resumes with and the epoch of its new primary: greater than
    /// <paramref name="epoch"/>'s floor and than every replica's, so every replica it gathers follows it. The entries are
    /// null when no silo keeps a replica (the shard is new, or every copy died).
    /// </summary>
    public async Task<(Shard? Entries, long Epoch)> ResumeAsync(int slot, long epoch)
    {
        var others = homes.Homes().Where(silo => !silo.Equals(homes.Self)).ToArray();
        var positions = await Task.WhenAll(others.Select(silo => PositionAsync(silo, slot))).ConfigureAwait(false);
        var local = replicas.PositionOf(slot);
        var held = positions.Where(static position => position.Position is not null)
            .Select(static position => (position.Silo, Position: position.Position!.Value))
            .OrderByDescending(static position => position.Position)
            .ToList();
        var newest = held.Select(static position => position.Position.Epoch).Append(local?.Epoch ?? 0).Max();
        epoch = Math.Max(epoch, newest + 1);

        foreach (var (silo, position) in held.TakeWhile(position => local is not { } kept || position.Position.CompareTo(kept) > 0))
        {
            if (await HandOverAsync(silo, slot, epoch).ConfigureAwait(false) is { } copy)
            {
                var entries = Install(slot, copy);
                replicas.Promote(slot, epoch)?.Dispose();
                LogHandedOver(logger, slot, silo, entries.Count, copy.Position.Epoch, copy.Position.Sequence);
                return (entries, epoch);
            }
        }

        var promoted = replicas.Promote(slot, epoch);
        if (promoted is not null)
        {
            LogPromoted(logger, slot, promoted.Count);
        }

        return (promoted, epoch);
    }

    /// <summary>
    /// The copy as this silo's entries of <paramref name="slot"/> (an entry that does not fit the budget is dropped, as a
    /// migration drops it). A chunk that cannot be installed fails the activation with nothing kept here; the giving
    /// silo still keeps its copy for the next attempt.
    /// </summary>
    private Shard Install(int slot, ReplicaCopy copy)
    {
        var entries = catalog.CreateDetached(slot);
        entries.Adopt(copy.Transactions);
        try
        {
            foreach (var chunk in copy.Chunks)
            {
                entries.Install(chunk);
            }

            return entries;
        }
        catch
        {
            entries.Dispose();
            throw;
        }
    }

    private async Task<(SiloAddress Silo, ReplicaPosition? Position)> PositionAsync(SiloAddress silo, int slot)
    {
        try
        {
            return (silo, await silos.Of(silo).PositionOf(slot).ConfigureAwait(false));
        }
        catch (Exception exception)
        {
            // A silo that does not answer in time is dead or about to be declared so: what it keeps is lost with it.
            LogNotAsked(logger, exception, slot, silo);
            return (silo, null);
        }
    }

    private async Task<ReplicaCopy?> HandOverAsync(SiloAddress silo, int slot, long epoch)
    {
        try
        {
            return await silos.Of(silo).HandOver(slot, epoch).ConfigureAwait(false);
        }
        catch (Exception exception)
        {
            LogNotAsked(logger, exception, slot, silo);
            return null;
        }
    }

    [LoggerMessage(EventId = LogEvents.ReplicaPromoted, Level = LogLevel.Information, Message = "Shard {Shard} resumed from the replica this silo kept, with {Entries} entries")]
    private static partial void LogPromoted(ILogger logger, int shard, int entries);

    [LoggerMessage(EventId = LogEvents.ReplicaHandedOver, Level = LogLevel.Information, Message = "Shard {Shard} resumed from the replica {Silo} kept, with {Entries} entries (epoch {Epoch}, batch {Sequence})")]
    private static partial void LogHandedOver(ILogger logger, int shard, SiloAddress silo, int entries, long epoch, long sequence);

    [LoggerMessage(EventId = LogEvents.ReplicaNotAsked, Level = LogLevel.Information, Message = "Shard {Shard} could not ask {Silo} for its replica; it resumes without what that silo keeps")]
    private static partial void LogNotAsked(ILogger logger, Exception exception, int shard, SiloAddress silo);
}
