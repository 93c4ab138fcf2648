using System.Diagnostics.Tracing;
using System.Globalization;

namespace Cubby.Load.NearCache;

/// <summary>
/// The runtime's own GC events in this process, once <see cref="Start"/>ed: how many collections of each generation,
/// how long each generation's pauses took and how many bytes each promoted. The totals alone do not say why one stack
/// pauses longer: more collections, or collections that copy more of what survived.
/// </summary>
internal sealed class GcPauseListener : EventListener
{
    private const EventKeywords GcKeyword = (EventKeywords)0x1;

    private readonly int[] _collections = new int[3];
    private readonly double[] _pausedMs = new double[3];
    private readonly long[] _promoted = new long[3];
    private DateTime _suspended;
    private int _generation;
    private volatile bool _counting;

    /// <summary>Counts from now on; events before (the warm-up's) are not counted.</summary>
    public void Start() => _counting = true;

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "Microsoft-Windows-DotNETRuntime")
        {
            EnableEvents(eventSource, EventLevel.Informational, GcKeyword);
        }
    }

    // The runtime raises these on the thread that runs the collection, one collection at a time.
    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        if (!_counting || eventData.Payload is not { } payload)
        {
            return;
        }

        switch (eventData.EventName)
        {
            case "GCStart_V2":
                _generation = Math.Clamp(Convert.ToInt32(payload[1], CultureInfo.InvariantCulture), 0, 2);
                _collections[_generation]++;
                break;
            case "GCSuspendEEBegin_V1":
                _suspended = eventData.TimeStamp;
                break;
            case "GCRestartEEEnd_V1":
                _pausedMs[_generation] += (eventData.TimeStamp - _suspended).TotalMilliseconds;
                break;
            case "GCHeapStats_V2":
                for (var generation = 0; generation < 3; generation++)
                {
                    _promoted[generation] += Convert.ToInt64(payload[(generation * 2) + 1], CultureInfo.InvariantCulture);
                }

                break;
        }
    }

    public override string ToString() => string.Create(
        CultureInfo.InvariantCulture,
        $"by generation 0/1/2: {_collections[0]}/{_collections[1]}/{_collections[2]} collections, paused {_pausedMs[0]:0}/{_pausedMs[1]:0}/{_pausedMs[2]:0} ms, promoted {_promoted[0] / 1e6:0}/{_promoted[1] / 1e6:0}/{_promoted[2] / 1e6:0} MB");
}
