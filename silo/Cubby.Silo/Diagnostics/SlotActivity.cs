using Cubby.Grains;

namespace Cubby.Silo.Diagnostics;

/// <summary>
/// Calls on each of this silo's shards over the last <see cref="WindowSeconds"/> samples, to rank the busiest slots:
/// commands through the RESP door, commands relayed from other silos, and client calls through the gateway alike, as
/// each shard counts them (<see cref="Shard.CallCount"/>).
/// </summary>
internal sealed class SlotActivity(ShardCatalog catalog)
{
    public const int WindowSeconds = 10;

    private readonly int[][] _samples = [.. Enumerable.Range(0, WindowSeconds).Select(_ => new int[catalog.SlotCount])];
    private readonly long[] _window = new long[catalog.SlotCount];
    private readonly Shard?[] _counted = new Shard?[catalog.SlotCount];
    private readonly long[] _countedCalls = new long[catalog.SlotCount];
    private int _next;
    private int _filled;

    /// <summary>Takes each shard's calls since the last sample into the window, dropping the oldest second.</summary>
    public void Sample()
    {
        var sample = _samples[_next];
        for (var slot = 0; slot < sample.Length; slot++)
        {
            _window[slot] -= sample[slot];
            sample[slot] = CallsSinceLastSample(slot);
            _window[slot] += sample[slot];
        }

        _next = (_next + 1) % WindowSeconds;
        _filled = Math.Min(_filled + 1, WindowSeconds);
    }

    /// <summary>The <paramref name="count"/> slots with the most calls in the window, busiest first; idle slots left out.</summary>
    public IReadOnlyList<BusySlot> Busiest(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(count);

        // A running top list rather than a sort of every slot: it runs every second, under load too.
        Span<int> top = stackalloc int[count];
        var found = 0;
        for (var slot = 0; slot < _window.Length; slot++)
        {
            var calls = _window[slot];
            if (calls <= 0 || (found == count && calls <= _window[top[found - 1]]))
            {
                continue;
            }

            // Slots are visited in order, so a slot tied with one already listed goes after it.
            var at = found < count ? found++ : count - 1;
            for (; at > 0 && calls > _window[top[at - 1]]; at--)
            {
                top[at] = top[at - 1];
            }

            top[at] = slot;
        }

        var seconds = Math.Max(_filled, 1);
        var busiest = new BusySlot[found];
        for (var i = 0; i < found; i++)
        {
            busiest[i] = new BusySlot(top[i], Math.Round((double)_window[top[i]] / seconds, 1));
        }

        return busiest;
    }

    private int CallsSinceLastSample(int slot)
    {
        // A shard that arrived here (activated, or moved in) since the last sample counts from its own zero.
        var shard = catalog.Find(slot);
        var calls = shard?.CallCount ?? 0;
        var since = ReferenceEquals(shard, _counted[slot]) ? calls - _countedCalls[slot] : calls;
        _counted[slot] = shard;
        _countedCalls[slot] = calls;
        return (int)Math.Min(since, int.MaxValue);
    }
}
