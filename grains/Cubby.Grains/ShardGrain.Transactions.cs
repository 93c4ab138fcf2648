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

    public ValueTask<KeyWatch[]> Watch(byte[][] keys)
    {
        ArgumentNullException.ThrowIfNull(keys);
        var shard = Entries;
        using var turn = shard.TakeTurn();
        var watches = new KeyWatch[keys.Length];
        for (var i = 0; i < keys.Length; i++)
        {
            CheckKey(keys[i]);
            watches[i] = shard.Watch(keys[i]);
        }

        return ValueTask.FromResult(watches);
    }

    public ValueTask<bool> Unchanged(byte[][] keys, KeyWatch[] watches)
    {
        ArgumentNullException.ThrowIfNull(keys);
        ArgumentNullException.ThrowIfNull(watches);
        if (keys.Length != watches.Length)
        {
            throw new ArgumentException($"{keys.Length} keys but {watches.Length} watches.", nameof(watches));
        }

        var shard = Entries;
        using var turn = shard.TakeTurn();
        for (var i = 0; i < keys.Length; i++)
        {
            if (!shard.IsUnchanged(keys[i], watches[i]))
            {
                return ValueTask.FromResult(false);
            }
        }

        return ValueTask.FromResult(true);
    }

    public Task Unwatch(byte[][] keys)
    {
        ArgumentNullException.ThrowIfNull(keys);
        var shard = Entries;
        using var turn = shard.TakeTurn();
        foreach (var key in keys)
        {
            shard.Unwatch(key);
        }

        return Task.CompletedTask;
    }
}
