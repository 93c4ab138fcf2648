using Cubby.Resp;

namespace Cubby.Grains;

/// <summary>
/// Runs a RESP command on a shard held by this silo and returns its reply (see <see cref="IShardCommands.Execute"/>).
/// The silo's command layer implements it, so a command reaching its shard through Orleans runs the same code, with the
/// same replies and errors, as one the front door runs directly.
/// </summary>
internal interface IShardCommandExecutor
{
    /// <summary>Runs <paramref name="command"/> (a RESP array of bulk strings) inside <paramref name="shard"/>'s turn.</summary>
    byte[] Execute(Shard shard, byte[] command, RespVersion protocol);
}
