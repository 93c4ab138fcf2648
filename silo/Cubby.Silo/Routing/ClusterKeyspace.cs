using Cubby.Grains;
using Cubby.Grains.Commands;
using Cubby.Sharding;
using Cubby.Silo.Commands;
using Cubby.Silo.Hosting;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Routing;

/// <summary>
/// DBSIZE, FLUSHALL, KEYS, SCAN and RANDOMKEY over the whole cluster: every shard, in its own turn, here when it is active here
/// and through its grain otherwise.
/// </summary>
internal static class ClusterKeyspace
{
    public static async ValueTask DbSizeAsync(ClientSession session)
    {
        var counts = await EveryShardAsync(session, static shard => (long)shard.Count, static grain => CountAsync(grain), wrote: false).ConfigureAwait(false);
        if (counts is not null)
        {
            session.Writer.WriteInteger(counts.Sum());
        }
    }

    public static async ValueTask FlushAllAsync(ClientSession session)
    {
        // Tracking connections hear of it first, with one null invalidation each, as from Redis: a key read again
        // before its shard is emptied is still sent on its own when it is.
        await Tracking.TrackingCommands.FlushingAsync(session.Silo).ConfigureAwait(false);
        if (await EveryShardAsync(session, static shard => shard.Clear(), static grain => grain.Clear().AsTask(), wrote: true).ConfigureAwait(false) is not null)
        {
            session.Writer.WriteOk();
        }
    }

    /// <summary>
    /// SAVE: every shard of the cluster written to its silo's persistence folder, each through its grain (which knows
    /// its epoch, the stamp the copy is written with); an error names how many could not be.
    /// </summary>
    public static async ValueTask SaveAsync(ClientSession session)
    {
        var (failed, total) = await SaveEveryShardAsync(session.Silo).ConfigureAwait(false);
        await session.ReplyTurnAsync().ConfigureAwait(false);
        if (failed == 0)
        {
            session.Writer.WriteOk();
        }
        else
        {
            session.Writer.WriteError($"ERR {failed} of {total} shards could not be saved: a silo keeps no Cubby:Persistence:Directory, or could not write to it (see its log)");
        }
    }

    /// <summary>
    /// Writes every shard of the cluster to its silo's folder, through its grain; how many could not be (no folder, a
    /// write that failed, a shard that did not answer). The end is noted in <see cref="SiloRuntime.Saves"/>.
    /// </summary>
    public static async Task<(int Failed, int Total)> SaveEveryShardAsync(SiloRuntime silo)
    {
        var slots = silo.Catalog.SlotCount;
        var calls = Enumerable.Range(0, slots).Select(slot => ShardRelay.CallAsync(silo, grains => grains.GetGrain<IShardGrain>(slot).Save())).ToArray();
        var failed = 0;
        foreach (var call in calls)
        {
            try
            {
                failed += await call.ConfigureAwait(false) ? 0 : 1;
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                failed++;
            }
        }

        silo.Saves.Ended(failed == 0, silo.Figures.Persistence?.ChangesRecorded ?? 0);
        return (failed, slots);
    }

    public static async ValueTask KeysAsync(ClientSession session, byte[] pattern)
    {
        var keys = await EveryShardAsync(session, shard => LocalKeys(shard, pattern), grain => grain.Keys(pattern).AsTask(), wrote: false).ConfigureAwait(false);
        if (keys is not null)
        {
            MatchingKeys.WriteArray(session.Writer, [.. keys.SelectMany(static shardKeys => shardKeys)]);
        }
    }

    /// <summary>
    /// A key picked at random: from a shard picked at random among those active here that hold any, else among the
    /// others (asked together); nil when the keyspace is empty.
    /// </summary>
    public static async ValueTask RandomKeyAsync(ClientSession session)
    {
        var silo = session.Silo;
        var slotCount = silo.Catalog.SlotCount;
        var start = Random.Shared.Next(slotCount);
        var remote = new List<int>();
        byte[]? key = null;
        for (var i = 0; i < slotCount && key is null; i++)
        {
            var slot = (start + i) % slotCount;
            if (!TryHere(session, slot, static shard => shard.RandomKey(), wrote: false, out key))
            {
                remote.Add(slot);
            }
        }

        if (key is null && remote.Count > 0)
        {
            var keys = await ShardsAsync(session, remote, static grain => grain.RandomKey().AsTask()).ConfigureAwait(false);
            if (keys is null)
            {
                return;
            }

            var found = keys.Where(static k => k is not null).ToArray();
            key = found.Length == 0 ? null : found[Random.Shared.Next(found.Length)];
        }
        else
        {
            await session.ReplyTurnAsync().ConfigureAwait(false);
        }

        if (key is null)
        {
            session.Writer.WriteNull();
        }
        else
        {
            session.Writer.WriteBulkString(key);
        }
    }

    /// <summary>SCAN's cursor is a shard: each call returns whole shards' keys, one shard after another.</summary>
    /// <param name="session">The connection asking.</param>
    /// <param name="cursor">The slot to start at.</param>
    /// <param name="pattern">SCAN's MATCH, or null.</param>
    /// <param name="count">SCAN's COUNT: whole slots are taken until at least this many keys are found.</param>
    /// <param name="type">SCAN's TYPE: null for every key; a type Cubby does not store finds none.</param>
    public static async ValueTask ScanAsync(ClientSession session, ulong cursor, byte[]? pattern, long count, string? type)
    {
        var silo = session.Silo;
        var keys = new List<byte[]>();
        var slot = cursor;
        var slotCount = (ulong)silo.Catalog.SlotCount;
        EntryKind? kind = null;
        var stored = true;
        if (type is not null)
        {
            stored = EntryKinds.TryParse(type, out var parsed);
            kind = parsed;
        }

        while (slot < slotCount && keys.Count < count)
        {
            if (stored)
            {
                var shard = (int)slot;
                try
                {
                    keys.AddRange(TryHere(session, shard, shard => LocalKeys(shard, pattern, kind), wrote: false, out var here) ? here
                        : await ShardRelay.CallAsync(silo, grains => grains.GetGrain<IShardGrain>(shard).Keys(pattern, type).AsTask()).ConfigureAwait(false));
                }
                catch (Exception exception) when (exception is not OutOfMemoryException)
                {
                    await session.ReplyTurnAsync().ConfigureAwait(false);
                    session.Writer.WriteError(ShardRelay.Describe(exception, shard));
                    return;
                }
            }

            slot++;
        }

        await session.ReplyTurnAsync().ConfigureAwait(false);
        session.Writer.WriteArrayHeader(2);
        session.Writer.WriteBulkString((slot >= slotCount ? 0 : slot).ToString(System.Globalization.CultureInfo.InvariantCulture));
        MatchingKeys.WriteArray(session.Writer, keys);
    }

    private static async Task<long> CountAsync(IShardGrain grain) => (await grain.Count().ConfigureAwait(false)).Entries;

    private static byte[][] LocalKeys(Shard shard, byte[]? pattern, EntryKind? kind = null)
    {
        var keys = new List<byte[]>();
        var sink = new MatchingKeys(pattern, keys);
        shard.VisitKeys(ref sink, kind);
        return [.. keys];
    }

    /// <summary>
    /// Runs <paramref name="here"/> in the turn of shard <paramref name="slot"/> if it is active here, and notes the shard
    /// in the session's context, so the reply waits, as a key command's does, until what the shard sealed is on its
    /// replicas and, when the call <paramref name="wrote"/>, until the near caches that held its keys dropped them.
    /// </summary>
    private static bool TryHere<T>(ClientSession session, int slot, Func<Shard, T> here, bool wrote, out T result)
    {
        if (session.Silo.Catalog.Find(slot) is { } shard && shard.TryEnterTurn())
        {
            try
            {
                result = here(shard);
                return true;
            }
            finally
            {
                shard.ExitTurn();
                session.Context.RanOn(shard, wrote);
            }
        }

        result = default!;
        return false;
    }

    /// <summary>
    /// Every shard's answer, by shard, once the caller may write its reply; null (with the error written) when a shard
    /// could not be reached.
    /// </summary>
    private static async Task<T[]?> EveryShardAsync<T>(ClientSession session, Func<Shard, T> here, Func<IShardGrain, Task<T>> remote, bool wrote)
    {
        var silo = session.Silo;
        var results = new T[silo.Catalog.SlotCount];
        var elsewhere = new List<int>();
        for (var slot = 0; slot < results.Length; slot++)
        {
            if (!TryHere(session, slot, here, wrote, out results[slot]))
            {
                elsewhere.Add(slot);
            }
        }

        var answers = await ShardsAsync(session, elsewhere, remote).ConfigureAwait(false);
        if (answers is null)
        {
            return null;
        }

        for (var i = 0; i < elsewhere.Count; i++)
        {
            results[elsewhere[i]] = answers[i];
        }

        return results;
    }

    /// <summary>
    /// The answers of the grains of <paramref name="slots"/>, asked together, once the caller may write its reply; null
    /// (with the error written) when a shard could not be reached.
    /// </summary>
    private static async Task<T[]?> ShardsAsync<T>(ClientSession session, List<int> slots, Func<IShardGrain, Task<T>> call)
    {
        var silo = session.Silo;
        var calls = slots.Select(slot => ShardRelay.CallAsync(silo, grains => call(grains.GetGrain<IShardGrain>(slot)))).ToArray();
        var results = new T[calls.Length];
        for (var i = 0; i < calls.Length; i++)
        {
            try
            {
                results[i] = await calls[i].ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                await session.ReplyTurnAsync().ConfigureAwait(false);
                session.Writer.WriteError(ShardRelay.Describe(exception, slots[i]));
                return null;
            }
        }

        await session.ReplyTurnAsync().ConfigureAwait(false);
        return results;
    }
}
