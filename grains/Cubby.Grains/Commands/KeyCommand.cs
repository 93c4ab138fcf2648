using Cubby.Grains.Commands.TwoKeys;
using Cubby.Resp;

namespace Cubby.Grains.Commands;

/// <summary>Runs one command on keys against the shards entered in <paramref name="context"/>, writing exactly one reply.</summary>
internal delegate void KeyCommandHandler(CommandContext context, RespRequest request);

/// <summary>A command on keys, which runs inside its keys' shards' turns wherever they are, with what COMMAND reports about it.</summary>
/// <param name="Name">The lower-case name.</param>
/// <param name="Arity">Redis's convention: N means exactly N arguments with the name; -N means at least N.</param>
/// <param name="Handler">The code that runs it on entered shards.</param>
/// <param name="Flags">Redis's command flags (write, readonly, fast, ...).</param>
/// <param name="FirstKey">The index of the first key argument.</param>
/// <param name="LastKey">The index of the last key argument; -1 for the last argument.</param>
/// <param name="KeyStep">The distance between key arguments.</param>
internal sealed record KeyCommand(string Name, int Arity, KeyCommandHandler Handler, string[] Flags, int FirstKey, int LastKey, int KeyStep)
{
    /// <summary>How the replies of its shares are merged when its keys are in shards on several silos.</summary>
    public ReplyMerge Merge { get; init; }

    /// <summary>
    /// For a command on two keys that stays atomic across silos (RENAME, COPY, LCS): its work, which a silo runs on the
    /// two shards' grains while it holds both when they are not both active here. Such a command is never split.
    /// </summary>
    public TwoKeyPlanner? TwoKeys { get; init; }

    /// <summary>Whether it only reads (Redis's <c>readonly</c> flag): the commands whose keys CLIENT TRACKING remembers.</summary>
    public bool ReadsOnly { get; } = Flags.Contains("readonly");

    public bool AcceptsArgumentCount(int count) => Arity >= 0 ? count == Arity : count >= -Arity;

    /// <summary>A command on two keys whose work is <paramref name="plan"/>.</summary>
    public static KeyCommand OnTwoKeys(string name, int arity, TwoKeyPlanner plan, string[] flags) =>
        new(name, arity, TwoKeyRunner.Here(plan), flags, 1, 2, 1) { TwoKeys = plan };
}
