namespace Cubby.Grains.Capacity;

/// <summary>
/// Makes room in the memory budget before a write by evicting from grains, one grain's turn at a time, so it never
/// holds two turns and cannot deadlock with writers.
/// </summary>
internal sealed class Evictor(ShardCatalog catalog)
{
    /// <summary>Evicts until <paramref name="bytes"/> fit in the budget; false when the store is empty and they still do not.</summary>
    public bool MakeRoom(long bytes)
    {
        var budget = catalog.Budget;
        if (bytes > budget.Limit)
        {
            return false;
        }

        var slot = Random.Shared.Next(catalog.SlotCount);
        var emptyInARow = 0;
        while (budget.Available < bytes)
        {
            var grain = catalog.Find(slot);
            slot = (slot + 1) % catalog.SlotCount;
            if (grain is null || grain.EvictOne(catalog.Settings.EvictionSamples) == 0)
            {
                if (++emptyInARow >= catalog.SlotCount)
                {
                    return false;
                }

                continue;
            }

            emptyInARow = 0;
        }

        return true;
    }
}
