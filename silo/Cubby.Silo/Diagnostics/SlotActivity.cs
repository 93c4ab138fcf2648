namespace Cubby.Silo.Diagnostics;

/// <summary>Per-slot command counts over the last <see cref="WindowSeconds"/> samples, to rank the busiest slots.</summary>
internal sealed class SlotActivity(int slotCount)
{
    public const int WindowSeconds = 10;

    private readonly int[][] _samples = [.. Enumerable.Range(0, WindowSeconds).Select(_ => new int[slotCount])];
    private readonly long[] _window = new long[slotCount];
    private int _next;
    private int _filled;

    /// <summary>Takes one second's counts from <paramref name="metrics"/> into the window, dropping the oldest second.</summary>
    public void Sample(CommandMetrics metrics)
    {
        var sample = _samples[_next];
        for (var slot = 0; slot < sample.Length; slot++)
        {
            _window[slot] -= sample[slot];
        }

        metrics.TakeSlotOperations(sample);
        for (var slot = 0; slot < sample.Length; slot++)
        {
            _window[slot] += sample[slot];
        }

        _next = (_next + 1) % WindowSeconds;
        _filled = Math.Min(_filled + 1, WindowSeconds);
    }

    /// <summary>The <paramref name="count"/> slots with the most commands in the window, busiest first; idle slots left out.</summary>
    public IReadOnlyList<BusySlot> Busiest(int count)
    {
        var seconds = Math.Max(_filled, 1);
        return [.. Enumerable.Range(0, _window.Length)
            .Where(slot => _window[slot] > 0)
            .OrderByDescending(slot => _window[slot])
            .ThenBy(slot => slot)
            .Take(count)
            .Select(slot => new BusySlot(slot, Math.Round((double)_window[slot] / seconds, 1)))];
    }
}
