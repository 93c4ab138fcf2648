using System.Buffers;
using Cubby.Grains;
using Cubby.Resp;
using Cubby.Silo.Commands;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Routing;

/// <summary>
/// Runs a keyed command where its keys' shards are. The common case, every shard active on this silo, runs at once
/// inside the shards' turns on the connection's thread (a grain call would only add a queue hop to the same turn);
/// anything else is relayed through Orleans to the shards' grains.
/// </summary>
internal static class KeyRouter
{
    public static void Execute(ClientSession session, CommandDefinition command, RespRequest request)
    {
        var catalog = session.Silo.Catalog;
        if (command.FirstKey == command.LastKey)
        {
            var slot = catalog.ShardMap.SlotOf(request[command.FirstKey]);
            if (catalog.Find(slot) is { } shard && shard.TryEnterTurn())
            {
                RunEntered(session, command, request, slot, shard);
                return;
            }

            session.Defer(ShardCalls.RunAsync(session, request, slot));
            return;
        }

        if (command.KeyStep > 1 && (request.Count - command.FirstKey) % command.KeyStep != 0)
        {
            // Keys without their values: the handler answers with the arity error, wherever the keys live.
            command.Handler(session, request);
            return;
        }

        // Checked before any shard runs its share, so one bad key fails the whole command with no effect.
        for (var index = command.FirstKey; index < request.Count && KeyArguments.IsKey(command, index, request.Count); index += Math.Max(command.KeyStep, 1))
        {
            if (!session.CheckKey(request[index]))
            {
                return;
            }
        }

        if (!TryRunHere(session, command, request))
        {
            session.Defer(command.RunHeld is { } runHeld ? runHeld(session, request) : MultiKeyCalls.RunAsync(session, command, request));
        }
    }

    /// <summary>
    /// Runs a multi-key command here if every one of its shards is active on this silo, holding all their turns, taken
    /// in ascending shard order so that two such commands can never wait for each other.
    /// </summary>
    public static bool TryRunHere(ClientSession session, CommandDefinition command, RespRequest request)
    {
        var catalog = session.Silo.Catalog;
        var keys = KeyArguments.Count(command, request.Count);
        var slots = ArrayPool<int>.Shared.Rent(keys);
        var entered = ArrayPool<Shard>.Shared.Rent(keys);
        var held = 0;
        try
        {
            var distinct = KeyArguments.DistinctSlots(command, request, catalog.ShardMap, slots);
            foreach (var slot in slots.AsSpan(0, distinct))
            {
                if (catalog.Find(slot) is not { } shard || !shard.TryEnterTurn())
                {
                    return false;
                }

                entered[held++] = shard;
            }

            session.Silo.Metrics.CountSlot(slots[0]);
            command.Handler(session, request);
            return true;
        }
        finally
        {
            foreach (var shard in entered.AsSpan(0, held))
            {
                shard.ExitTurn();
            }

            ArrayPool<Shard>.Shared.Return(entered, clearArray: true);
            ArrayPool<int>.Shared.Return(slots);
        }
    }

    private static void RunEntered(ClientSession session, CommandDefinition command, RespRequest request, int slot, Shard shard)
    {
        session.Silo.Metrics.CountSlot(slot);
        try
        {
            command.Handler(session, request);
        }
        finally
        {
            shard.ExitTurn();
        }
    }
}
