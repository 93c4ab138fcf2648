using Cubby.Grains.Commands;
using Cubby.Silo.Routing;

namespace Cubby.Silo.Commands;

/// <summary>A command the silo serves, with what COMMAND reports about it.</summary>
/// <param name="Name">The lower-case name.</param>
/// <param name="Arity">Redis's convention: N means exactly N arguments with the name; -N means at least N.</param>
/// <param name="Handler">The code that runs it on a connection; for a command on keys, its handler run with no shard entered (its argument errors, OBJECT HELP).</param>
/// <param name="Flags">Redis's command flags (write, readonly, fast, ...).</param>
/// <param name="FirstKey">The index of the first key argument, 0 when none.</param>
/// <param name="LastKey">The index of the last key argument; -1 for the last argument.</param>
/// <param name="KeyStep">The distance between key arguments.</param>
internal sealed record CommandDefinition(string Name, int Arity, CommandHandler Handler, string[] Flags, int FirstKey = 0, int LastKey = 0, int KeyStep = 0)
{
    /// <summary>Whether a client that has not authenticated may run it.</summary>
    public bool AllowedBeforeAuth { get; init; }

    /// <summary>Whether a RESP2 connection subscribed to channels or patterns may run it (Redis's subscribed context).</summary>
    public bool AllowedWhileSubscribed { get; init; }

    /// <summary>Whether its first argument names a subcommand, which errors name as <c>command|subcommand</c>.</summary>
    public bool HasSubcommands { get; init; }

    /// <summary>Whether it runs at once even between MULTI and EXEC (MULTI, EXEC, DISCARD, WATCH, QUIT), instead of being queued.</summary>
    public bool ControlsTransaction { get; init; }

    /// <summary>Whether it reads or writes every shard (SCAN, KEYS, DBSIZE, FLUSHALL): a transaction holding it holds them all.</summary>
    public bool WholeKeyspace { get; init; }

    /// <summary>The command on keys this is, which <see cref="KeyRouter"/> runs in its shards' turns; null for the silo's own commands.</summary>
    public KeyCommand? Keyed { get; init; }

    /// <summary>The command's position in its <see cref="CommandTable"/>, which indexes its metrics.</summary>
    public int Index { get; init; }

    public bool AcceptsArgumentCount(int count) => Arity >= 0 ? count == Arity : count >= -Arity;

    /// <summary>The silo's entry for a command on keys.</summary>
    public static CommandDefinition For(KeyCommand command) =>
        new(command.Name, command.Arity, (session, request) => command.Handler(session.Context, request), command.Flags, command.FirstKey, command.LastKey, command.KeyStep)
        {
            Keyed = command,
        };
}
