namespace Cubby.Grains.Capacity;

/// <summary>
/// Makes room in the memory budget by evicting from the silo's shards, one entry at a time and one shard after
/// another, starting at a random one. A writer calls it from inside its own shard's turn when its charge does not
/// fit, so it never waits for another shard's turn: a busy shard is skipped and visited again on the next pass.
/// </summary>
internal sealed class Evictor(ShardCatalog catalog) : IMemoryReclaimer
{
    // Passes in a row that freed nothing while some shard was busy, before giving up: about a second, yielding the
    // first few times and then sleeping 1 ms. A busy shard's holder is itself mid-command, so it is free again within
    // microseconds; the bound only keeps a writer from waiting forever on a holder that waits for this writer's own
    // shard (MSETNX takes several turns).
    private const int MaxBusyPasses = 1000;
    private const int YieldingPasses = 10;

    public bool MakeRoom(long bytes)
    {
        var budget = catalog.Budget;
        if (bytes > budget.Ceiling)
        {
            return false;
        }

        var slot = Random.Shared.Next(catalog.SlotCount);
        var visitedInVain = 0;
        var sawBusy = false;
        var busyPasses = 0;
        while (budget.Available < bytes)
        {
            var shard = catalog.Find(slot);
            slot = slot + 1 == catalog.SlotCount ? 0 : slot + 1;
            if (shard is null)
            {
                // never activated: nothing to evict
            }
            else if (!shard.TryEvictOne(catalog.Settings.EvictionSamples, out var freed))
            {
                sawBusy = true;
            }
            else if (freed > 0)
            {
                visitedInVain = 0;
                sawBusy = false;
                continue;
            }

            if (++visitedInVain < catalog.SlotCount)
            {
                continue;
            }

            if (!sawBusy || ++busyPasses > MaxBusyPasses)
            {
                return false;
            }

            visitedInVain = 0;
            sawBusy = false;
            if (busyPasses <= YieldingPasses)
            {
                Thread.Yield();
            }
            else
            {
                Thread.Sleep(1);
            }
        }

        return true;
    }
}
