using System.Diagnostics;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Text;

namespace Cubby.Grains.Commands.TwoKeys;

/// <summary>Runs a two-key command on its shards once the caller entered both (see <see cref="TwoKeyWork"/>).</summary>
internal static class TwoKeyRunner
{
    /// <summary>A handler for the command planned by <paramref name="plan"/>: runs it on the entered shards and replies at once.</summary>
    public static KeyCommandHandler Here(TwoKeyPlanner plan) => (context, request) =>
    {
        if (plan(context, request) is not { } work)
        {
            return;
        }

        try
        {
            var pending = work.RunAsync(new LocalShards(work.First, context.ShardAt(1), context.ShardAt(2)));
            Debug.Assert(pending.IsCompleted, "Entered shards answer at once.");
            pending.GetAwaiter().GetResult();
        }
        catch (CubbyOutOfMemoryException)
        {
            context.Writer.WriteError(RedisErrors.OutOfMemory);
            return;
        }

        work.WriteReply(context);
    };
}
