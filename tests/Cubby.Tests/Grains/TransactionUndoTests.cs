using Cubby.Grains;
using Cubby.Grains.Capacity;
using Cubby.Grains.Fencing;
using Cubby.Grains.Storage;
using Cubby.Sharding;
using Cubby.Tests.Client;

namespace Cubby.Tests.Grains;

/// <summary>
/// A held shard settles its transaction as decided even while its silo's fence is shut for a moment (a silo that has
/// not heard from a majority for a second): the fence keeps callers out, not the shard from finishing its decision.
/// The fault harness's ten-minute schedule lost a transfer's credit when keeping it threw there: the last shard had
/// decided to keep, never told it, and the shard before it rolled back after asking for a minute.
/// </summary>
public sealed class TransactionUndoTests
{
    private static readonly byte[] Key = "account:0"u8.ToArray();

    [Fact]
    public async Task A_shard_keeps_its_transaction_while_its_silo_is_fenced()
    {
        var fence = new ServingFence(TimeSpan.FromMilliseconds(200));
        using var shard = ShardBehind(fence);
        var undo = await ChangedUnderShutFenceAsync(shard, fence);
        Assert.Throws<SiloFencedException>(() => shard.TakeTurn().Dispose());
        undo.Keep(shard);

        fence.Confirmed(TimeProvider.System.GetTimestamp());
        Assert.Equal("1266", Read(shard));
    }

    [Fact]
    public async Task A_shard_puts_its_keys_back_while_its_silo_is_fenced()
    {
        var fence = new ServingFence(TimeSpan.FromMilliseconds(200));
        using var shard = ShardBehind(fence);
        var undo = await ChangedUnderShutFenceAsync(shard, fence);
        undo.Restore(shard);

        fence.Confirmed(TimeProvider.System.GetTimestamp());
        Assert.Equal("1263", Read(shard));
    }

    /// <summary>A transaction's key held at "1263" and changed to "1266"; then the fence shuts (nobody confirms it).</summary>
    private static async Task<TransactionUndo> ChangedUnderShutFenceAsync(Shard shard, ServingFence fence)
    {
        Write(shard, "1263");
        var undo = TransactionUndo.Capture(shard, [Key]);
        Write(shard, "1266");
        await Poll.UntilAsync(() => !fence.IsServing, TimeSpan.FromSeconds(10), "the fence to shut");
        return undo;
    }

    private static Shard ShardBehind(ServingFence fence) =>
        new(0, new EntryStore(), new MemoryBudget(1 << 24), NothingToEvict.Instance, TimeProvider.System, 1 << 20) { Fence = fence };

    private static void Write(Shard shard, string value)
    {
        using var turn = shard.TakeTurn();
        shard.Import(Key, new ShardEntryCopy(System.Text.Encoding.UTF8.GetBytes(value), EntryKind.String, CacheEntryFlags.None, 0, 0, 0), replace: true);
    }

    private static string? Read(Shard shard)
    {
        using var turn = shard.TakeTurn();
        return shard.Export(Key) is { } entry ? System.Text.Encoding.UTF8.GetString(entry.Value) : null;
    }
}
