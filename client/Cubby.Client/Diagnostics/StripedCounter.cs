namespace Cubby.Client.Diagnostics;

/// <summary>
/// A count that threads add to on a slot picked by the thread, so threads that count at once (hits on a hot path) do
/// not fight over one cache line; a reading sums the slots.
/// </summary>
internal sealed class StripedCounter
{
    private const int Slots = 16;

    // One count per 64-byte line.
    private const int Stride = 8;

    // A line before the first count and after the last: the array's header and the objects beside it are read by
    // every increment and must not share a line that another thread is adding to.
    private readonly long[] _counts = new long[(Slots + 2) * Stride];

    public long Value
    {
        get
        {
            var sum = 0L;
            for (var i = Stride; i <= Slots * Stride; i += Stride)
            {
                sum += Volatile.Read(ref _counts[i]);
            }

            return sum;
        }
    }

    public void Increment() => Interlocked.Increment(ref _counts[((Environment.CurrentManagedThreadId & (Slots - 1)) + 1) * Stride]);
}
