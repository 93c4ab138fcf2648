using Cubby.Resp;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Routing;

/// <summary>A single-shard command whose shard is not active here, or is moving: relayed to its grain through Orleans.</summary>
internal static class ShardCalls
{
    public static async ValueTask RunAsync(ClientSession session, RespRequest request, int slot)
    {
        // Copied now: the request's buffers belong to the connection again once this method first awaits.
        var reply = await ShardRelay.RunAsync(session.Silo, slot, ShardRelay.Command(request, session.Context), session.CallBudget).ConfigureAwait(false);
        await session.ReplyTurnAsync().ConfigureAwait(false);
        session.Writer.WriteRelayedReply(reply.Reply);
    }
}
