using System.Diagnostics.Tracing;

namespace Cubby.Silo.Diagnostics;

/// <summary>
/// Records every garbage collection's pause (from the runtime suspending threads to resuming them) from the runtime's
/// own GC events, so INFO can report pause percentiles rather than only a total.
/// </summary>
internal sealed class GcPauseMonitor : EventListener
{
    private const string RuntimeSource = "Microsoft-Windows-DotNETRuntime";
    private const EventKeywords GcKeyword = (EventKeywords)0x1;
    private const int SuspendBegin = 9;
    private const int RestartEnd = 3;
    private const int Capacity = 4096;

    private readonly Lock _sync = new();
    private readonly double[] _pauses = new double[Capacity];
    private long _count;
    private DateTime _suspendedAt;

    private GcPauseMonitor()
    {
    }

    /// <summary>
    /// The process's one monitor, never disposed. One per silo would create and dispose runtime-event listeners
    /// concurrently when several silos start and stop in one process (tests), which can deadlock inside the runtime's
    /// EventListener/EventPipe locks (dotnet/runtime#78233, #96219).
    /// </summary>
    public static GcPauseMonitor Shared { get; } = new();

    /// <summary>Pauses recorded since start.</summary>
    public long Count
    {
        get
        {
            lock (_sync)
            {
                return _count;
            }
        }
    }

    /// <summary>Percentiles of the most recent pauses (up to the last 4096), in milliseconds.</summary>
    public (double P50, double P99, double Max) Percentiles()
    {
        double[] recent;
        lock (_sync)
        {
            recent = _pauses[..(int)Math.Min(_count, Capacity)];
        }

        if (recent.Length == 0)
        {
            return (0, 0, 0);
        }

        Array.Sort(recent);
        return (At(recent, 0.50), At(recent, 0.99), recent[^1]);
    }

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == RuntimeSource)
        {
            EnableEvents(eventSource, EventLevel.Informational, GcKeyword);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        switch (eventData.EventId)
        {
            case SuspendBegin:
                _suspendedAt = eventData.TimeStamp;
                break;
            case RestartEnd when _suspendedAt != default:
                lock (_sync)
                {
                    _pauses[_count++ % Capacity] = (eventData.TimeStamp - _suspendedAt).TotalMilliseconds;
                }

                _suspendedAt = default;
                break;
        }
    }

    private static double At(double[] sorted, double quantile) => sorted[(int)Math.Min(sorted.Length - 1, Math.Ceiling(quantile * sorted.Length) - 1)];
}
