using Cubby.Resp;
using Cubby.Silo.Commands;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Cluster.Routing;

/// <summary>
/// Runs a keyed command where its keys' data is. The common case (every key's slot held here) runs at once inside
/// the slots' gates, on the connection's thread; anything else is deferred to a forward or a wait.
/// </summary>
internal static class KeyRouter
{
    public static void Execute(ClientSession session, CommandDefinition command, RespRequest request)
    {
        var cluster = session.Silo.Cluster;
        var shardMap = session.Silo.Catalog.ShardMap;
        if (cluster.IsStandalone)
        {
            session.Silo.Metrics.CountSlot(shardMap.SlotOf(request[command.FirstKey]));
            command.Handler(session, request);
            return;
        }

        if (command.FirstKey == command.LastKey)
        {
            var slot = shardMap.SlotOf(request[command.FirstKey]);
            if (!cluster.Slots.TryEnter(slot))
            {
                session.Defer(SlotCalls.RunAsync(session, command, request, slot));
                return;
            }

            session.Silo.Metrics.CountSlot(slot);
            try
            {
                command.Handler(session, request);
            }
            finally
            {
                cluster.Slots.Exit(slot);
            }

            return;
        }

        if (command.KeyStep > 1 && (request.Count - command.FirstKey) % command.KeyStep != 0)
        {
            // Keys without their values: the handler answers with the arity error, wherever the keys live.
            command.Handler(session, request);
            return;
        }

        RunMultiKey(session, command, request);
    }

    private static void RunMultiKey(ClientSession session, CommandDefinition command, RespRequest request)
    {
        var slots = session.Silo.Cluster.Slots;
        var shardMap = session.Silo.Catalog.ShardMap;
        var last = command.LastKey < 0 ? request.Count + command.LastKey : command.LastKey;
        var step = Math.Max(command.KeyStep, 1);
        var entered = command.FirstKey;
        var allHere = true;
        for (; entered <= last; entered += step)
        {
            if (!slots.TryEnter(shardMap.SlotOf(request[entered])))
            {
                allHere = false;
                break;
            }
        }

        try
        {
            if (allHere)
            {
                session.Silo.Metrics.CountSlot(shardMap.SlotOf(request[command.FirstKey]));
                command.Handler(session, request);
            }
            else
            {
                session.Defer(MultiKeyCalls.RunAsync(session, command, request));
            }
        }
        finally
        {
            for (var index = command.FirstKey; index < entered; index += step)
            {
                slots.Exit(shardMap.SlotOf(request[index]));
            }
        }
    }
}
