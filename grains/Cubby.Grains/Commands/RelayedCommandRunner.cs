using System.Buffers;
using Cubby.Grains.Hosting;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Text;

namespace Cubby.Grains.Commands;

/// <summary>
/// Runs relayed commands (<see cref="IShardCommands.Run"/>) inside their shard grain's turn. A grain turn is synchronous,
/// so each thread keeps one context and one request per catalog, reused call after call.
/// </summary>
internal sealed class RelayedCommandRunner(ShardCatalog catalog, RespFrontDoor respDoor)
{
    [ThreadStatic]
    private static RelayState? t_state;

    /// <summary>Runs <paramref name="relayed"/> on <paramref name="shard"/>; <paramref name="wrote"/>: whether it may have changed the shard.</summary>
    public RelayedReply Run(Shard shard, RelayedCommand relayed, out bool wrote)
    {
        wrote = false;
        var state = t_state is { } cached && ReferenceEquals(cached.Catalog, catalog) ? cached : t_state = new RelayState(catalog, respDoor);
        var (context, request, reply, boundaries) = (state.Context, state.Request, state.Reply, state.Boundaries);
        reply.ResetWrittenCount();
        boundaries.Clear();
        context.Writer.Version = relayed.Protocol;
        context.TrackReadsFor = relayed.TrackReadsFor;
        relayed.CopyTo(request);
        var command = request.Count > 0 ? KeyCommandTable.Instance.Find(request[0]) : null;
        if (command is null || !command.AcceptsArgumentCount(request.Count))
        {
            context.Writer.WriteError($"ERR a relayed command must be a command on keys with its arguments: {(request.Count > 0 ? RedisErrors.Printable(request[0]) : "(empty)")}");
            return Take(state);
        }

        wrote = !command.ReadsOnly;
        if (command.Merge == ReplyMerge.ByKey)
        {
            context.TrackBoundaries(reply, boundaries);
        }

        shard.EnterTurn();
        try
        {
            shard.ThrowIfHoldEnded();
            KeyCommandRunner.RunEntered(shard, command, context, request);
        }
        catch (WrongTypeException)
        {
            // Thrown by the shard before the handler wrote anything: the reply is Redis's error alone.
            reply.ResetWrittenCount();
            boundaries.Clear();
            context.Writer.WriteError(WrongTypeException.RedisError);
        }
        finally
        {
            shard.ExitTurn();
            context.StopTrackingBoundaries();
        }

        return Take(state);
    }

    private static RelayedReply Take(RelayState state)
    {
        var (hits, misses) = state.Context.TakeLookups();
        return new RelayedReply
        {
            Reply = state.Reply.WrittenSpan.ToArray(),
            Boundaries = state.Boundaries.Count > 0 ? [.. state.Boundaries] : null,
            Hits = hits,
            Misses = misses,
        };
    }

    private sealed class RelayState
    {
        public RelayState(ShardCatalog catalog, RespFrontDoor respDoor)
        {
            Catalog = catalog;
            Context = new CommandContext(catalog, Reply, respDoor);
        }

        public ShardCatalog Catalog { get; }

        public ArrayBufferWriter<byte> Reply { get; } = new();

        public List<int> Boundaries { get; } = [];

        public CommandContext Context { get; }

        public RespRequest Request { get; } = new();
    }
}
