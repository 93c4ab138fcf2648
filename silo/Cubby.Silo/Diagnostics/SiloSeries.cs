namespace Cubby.Silo.Diagnostics;

/// <summary>The last <see cref="Capacity"/> seconds of a silo's activity (a ring), and its busiest slots of late.</summary>
internal sealed class SiloSeries
{
    /// <summary>Ten minutes of one point a second.</summary>
    public const int Capacity = 600;

    private readonly Lock _lock = new();
    private readonly SeriesPoint[] _points = new SeriesPoint[Capacity];
    private int _next;
    private int _count;
    private IReadOnlyList<BusySlot> _busiest = [];

    public IReadOnlyList<BusySlot> BusiestSlots
    {
        get => Volatile.Read(ref _busiest);
        set => Volatile.Write(ref _busiest, value);
    }

    public void Add(SeriesPoint point)
    {
        lock (_lock)
        {
            _points[_next] = point;
            _next = (_next + 1) % Capacity;
            _count = Math.Min(_count + 1, Capacity);
        }
    }

    /// <summary>Up to the <paramref name="count"/> latest points, oldest first.</summary>
    public SeriesPoint[] Latest(int count)
    {
        lock (_lock)
        {
            var taken = Math.Clamp(count, 0, _count);
            var result = new SeriesPoint[taken];
            for (var i = 0; i < taken; i++)
            {
                result[i] = _points[(_next - taken + i + Capacity) % Capacity];
            }

            return result;
        }
    }
}
