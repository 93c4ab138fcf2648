using Cubby.Sharding;
using Orleans.Runtime;

namespace Cubby.Grains;

internal sealed partial class ShardGrain
{
    public async ValueTask Hold(int[] slots, int depth, ITransactionCallback callback)
    {
        ArgumentNullException.ThrowIfNull(slots);
        ArgumentNullException.ThrowIfNull(callback);
        if (depth < 0 || depth >= slots.Length || slots[depth] != Id)
        {
            throw new ArgumentException($"Shard {Id} is not at position {depth} of the transaction's shards.", nameof(depth));
        }

        var chain = RequestContext.ReentrancyId;
        if (chain == Guid.Empty)
        {
            throw new InvalidOperationException("A transaction's hold needs the caller's call chain (RequestContext.ReentrancyId).");
        }

        // Lets the transaction's own calls (same chain) into this grain while this call waits; Orleans queues all others.
        using var reentrancy = RequestContext.AllowCallChainReentrancy();
        var shard = Entries;
        shard.Hold(chain);
        try
        {
            if (depth + 1 < slots.Length)
            {
                await GrainFactory.GetGrain<IShardGrain>(slots[depth + 1]).Hold(slots, depth + 1, callback);
            }
            else
            {
                await callback.Held();
            }
        }
        finally
        {
            shard.Release();
        }
    }
}
