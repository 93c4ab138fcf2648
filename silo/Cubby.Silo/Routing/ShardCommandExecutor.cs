using System.Buffers;
using Cubby.Grains;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Silo.Commands;
using Cubby.Silo.Hosting;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Routing;

/// <summary>
/// Runs a relayed RESP command inside its shard grain's turn with the same handler the front door runs, so a command
/// answers the same wherever its client connected. A grain turn is synchronous, so each thread keeps one session.
/// </summary>
internal sealed class ShardCommandExecutor(SiloRuntime silo) : IShardCommandExecutor
{
    [ThreadStatic]
    private static RelaySession? t_session;

    public byte[] Execute(Shard shard, byte[] command, RespVersion protocol)
    {
        var relay = t_session is { } cached && ReferenceEquals(cached.Silo, silo) ? cached : t_session = new RelaySession(silo);
        relay.Reply.ResetWrittenCount();
        var session = relay.Session;
        session.Writer.Version = protocol;
        var request = relay.Request;
        if (!relay.TryParse(command, out var error))
        {
            session.Writer.WriteError("ERR Protocol error in a relayed command: " + error);
            return relay.Reply.WrittenSpan.ToArray();
        }

        var definition = silo.Commands.Find(request[0]);
        if (definition is null || definition.FirstKey == 0)
        {
            session.Writer.WriteError("ERR only commands on keys are relayed to a shard");
            return relay.Reply.WrittenSpan.ToArray();
        }

        shard.EnterTurn();
        try
        {
            silo.Metrics.CountSlot(shard.Slot);
            definition.Handler(session, request);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            relay.Reply.ResetWrittenCount();
            session.Writer.WriteError(exception is WrongTypeException ? WrongTypeException.RedisError : "ERR internal error: " + exception.Message);
        }
        finally
        {
            shard.ExitTurn();
            session.PublishStatistics(0);
        }

        return relay.Reply.WrittenSpan.ToArray();
    }

    /// <summary>A session without a connection: authenticated, replying into a buffer.</summary>
    private sealed class RelaySession
    {
        private readonly RespLimits _limits;

        public RelaySession(SiloRuntime silo)
        {
            Silo = silo;
            Session = new ClientSession(silo, Reply, "relay") { IsAuthenticated = true };
            _limits = new RespLimits
            {
                MaxBulkBytes = silo.Options.MaxValueBytes,
                MaxArrayLength = silo.Options.MaxArguments,
                MaxRequestBytes = (int)Math.Min(silo.Options.MaxRequestBytes, Array.MaxLength),
            };
        }

        public SiloRuntime Silo { get; }

        public ArrayBufferWriter<byte> Reply { get; } = new();

        public ClientSession Session { get; }

        public RespRequest Request { get; } = new();

        public bool TryParse(byte[] command, out string? error)
        {
            var status = RespRequestParser.TryParse(new ReadOnlySequence<byte>(command), Request, _limits, out _, out error);
            error ??= status == RespParseStatus.Complete ? null : "the frame is incomplete";
            return status == RespParseStatus.Complete;
        }
    }
}
