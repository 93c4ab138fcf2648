using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Silo.Commands;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Routing;

/// <summary>
/// Runs a command on keys where its keys' shards are. The common case, every shard active on this silo, runs at once
/// inside the shards' turns on the connection's thread (a grain call would only add a queue hop to the same turn);
/// anything else is relayed through Orleans to the shards' grains, which run the same handler.
/// </summary>
internal static class KeyRouter
{
    public static void Execute(ClientSession session, CommandDefinition definition, KeyCommand command, RespRequest request)
    {
        var catalog = session.Silo.Catalog;
        if (command.FirstKey == command.LastKey)
        {
            var slot = catalog.ShardMap.SlotOf(request[command.FirstKey]);
            if (KeyCommandRunner.TryRunHere(catalog, slot, command, session.Context, request))
            {
                return;
            }

            session.Defer(ShardCalls.RunAsync(session, request, slot));
            return;
        }

        if (command.KeyStep > 1 && (request.Count - command.FirstKey) % command.KeyStep != 0)
        {
            // Keys without their values: the handler answers with the arity error, wherever the keys live.
            definition.Handler(session, request);
            return;
        }

        // Checked before any shard runs its share, so one bad key fails the whole command with no effect.
        for (var index = command.FirstKey; index < request.Count && KeyArguments.IsKey(command, index, request.Count); index += KeyArguments.Step(command))
        {
            if (!session.CheckKey(request[index]))
            {
                return;
            }
        }

        if (KeyCommandRunner.TryRunHere(catalog, command, session.Context, request))
        {
            return;
        }

        session.Defer(command.TwoKeys is { } plan ? TwoKeyCalls.RunAsync(session, plan, request) : MultiKeyCalls.RunAsync(session, command, request));
    }
}
