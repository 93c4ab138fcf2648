using Cubby.Grains;
using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Silo.Commands;
using Cubby.Silo.Hosting;
using Cubby.Silo.Protocol;
using Cubby.Silo.Routing;

namespace Cubby.Silo.Transactions;

/// <summary>
/// WATCH and UNWATCH: a connection asks each key's shard to stamp the key, and EXEC runs nothing (a null reply) if a
/// watched key changed since (<see cref="TransactionRunner"/>). Shards here are asked directly, others through their grains.
/// </summary>
internal static class WatchCommands
{
    public static void Watch(ClientSession session, RespRequest request)
    {
        if (session.Transaction is not null)
        {
            session.Writer.WriteError(SiloErrors.WatchInsideMulti);
            return;
        }

        for (var i = 1; i < request.Count; i++)
        {
            if (!session.CheckKey(request[i]))
            {
                return;
            }
        }

        var catalog = session.Silo.Catalog;
        var watched = session.Watches ??= new WatchedKeys();
        List<(int Slot, byte[] Key)>? elsewhere = null;
        for (var i = 1; i < request.Count; i++)
        {
            var key = request[i];
            if (watched.Contains(key) || Pending(elsewhere, key))
            {
                continue;
            }

            var slot = catalog.ShardMap.SlotOf(key);
            if (catalog.Find(slot) is { } shard && shard.TryEnterTurn())
            {
                try
                {
                    watched.Add(slot, key.ToArray(), shard.Watch(key));
                }
                finally
                {
                    shard.ExitTurn();
                }
            }
            else
            {
                (elsewhere ??= []).Add((slot, key.ToArray()));
            }
        }

        if (elsewhere is null)
        {
            session.Writer.WriteOk();
            return;
        }

        session.Defer(WatchElsewhereAsync(session, watched, elsewhere));
    }

    public static void Unwatch(ClientSession session, RespRequest request)
    {
        Release(session);
        session.Writer.WriteOk();
    }

    /// <summary>Ends every watch of the connection (DISCARD, EXECABORT, or it closed).</summary>
    public static void Release(ClientSession session)
    {
        if (session.Watches is { } watched)
        {
            session.Watches = null;
            End(session.Silo, watched);
        }
    }

    /// <summary>Ends the watches of <paramref name="watched"/>: directly on shards here, by one one-way call per shard elsewhere.</summary>
    public static void End(SiloRuntime silo, WatchedKeys watched)
    {
        foreach (var group in watched.ByShard())
        {
            if (silo.Catalog.Find(group.Key) is { IsOpen: true } shard)
            {
                using var turn = shard.TakeTurn();
                foreach (var key in group)
                {
                    shard.Unwatch(key.Key);
                }
            }
            else
            {
                // One-way: nothing to wait for, and a shard that moved meanwhile has no watch to end.
                _ = silo.Grains.GetGrain<IShardGrain>(group.Key).Unwatch([.. group.Select(static key => key.Key)]);
            }
        }
    }

    /// <summary>
    /// Whether every watched key is unchanged, asked of their shards while the transaction holds them; null, with the
    /// error written, when a shard did not answer.
    /// </summary>
    public static async ValueTask<bool?> UnchangedAsync(ClientSession session, WatchedKeys watched)
    {
        var silo = session.Silo;
        foreach (var group in watched.ByShard())
        {
            if (silo.Catalog.Find(group.Key) is { IsOpen: true } shard)
            {
                if (!AllUnchanged(shard, group))
                {
                    return false;
                }

                continue;
            }

            try
            {
                var keys = group.Select(static key => key.Key).ToArray();
                var watches = group.Select(static key => key.Watch).ToArray();
                if (!await ShardRelay.CallAsync(silo, grains => grains.GetGrain<IShardGrain>(group.Key).Unchanged(keys, watches).AsTask()).ConfigureAwait(false))
                {
                    return false;
                }
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                session.Writer.WriteError(ShardRelay.Describe(exception, group.Key));
                return null;
            }
        }

        return true;
    }

    private static bool AllUnchanged(Shard shard, IEnumerable<WatchedKey> keys)
    {
        using var turn = shard.TakeTurn();
        foreach (var key in keys)
        {
            if (!shard.IsUnchanged(key.Key, key.Watch))
            {
                return false;
            }
        }

        return true;
    }

    private static bool Pending(List<(int Slot, byte[] Key)>? elsewhere, ReadOnlySpan<byte> key)
    {
        foreach (var (_, pending) in elsewhere ?? [])
        {
            if (key.SequenceEqual(pending))
            {
                return true;
            }
        }

        return false;
    }

    private static async ValueTask WatchElsewhereAsync(ClientSession session, WatchedKeys watched, List<(int Slot, byte[] Key)> elsewhere)
    {
        var silo = session.Silo;
        var calls = elsewhere.GroupBy(static pending => pending.Slot).Select(group =>
        {
            var keys = group.Select(static pending => pending.Key).ToArray();
            return (Slot: group.Key, Keys: keys, Call: ShardRelay.CallAsync(silo, grains => grains.GetGrain<IShardGrain>(group.Key).Watch(keys).AsTask()));
        }).ToList();

        string? error = null;
        var answered = new List<(int Slot, byte[][] Keys, KeyWatch[] Watches)>();
        foreach (var (slot, keys, call) in calls)
        {
            try
            {
                answered.Add((slot, keys, await call.ConfigureAwait(false)));
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                error ??= ShardRelay.Describe(exception, slot);
            }
        }

        await session.ReplyTurnAsync().ConfigureAwait(false);
        foreach (var (slot, keys, watches) in answered)
        {
            for (var i = 0; i < keys.Length; i++)
            {
                watched.Add(slot, keys[i], watches[i]);
            }
        }

        if (error is null)
        {
            session.Writer.WriteOk();
        }
        else
        {
            session.Writer.WriteError(error);
        }
    }
}
