using System.Collections.Concurrent;

namespace Cubby.Load.Faults;

/// <summary>
/// What clients did to registers while faults ran: each register has one writer, which writes it increasing numbers,
/// and any number of readers. Times are <see cref="System.Diagnostics.Stopwatch"/> timestamps of this process. A write
/// that failed or timed out has no acknowledgment: it may or may not have been applied. Beside the registers, one
/// counter that every incrementer raises by one. Thread-safe.
/// </summary>
internal sealed class RegisterHistory
{
    private readonly ConcurrentQueue<RegisterWrite> _writes = new();
    private readonly ConcurrentQueue<RegisterRead> _reads = new();
    private readonly ConcurrentQueue<long> _increments = new();

    public IEnumerable<RegisterWrite> Writes => _writes;

    public IEnumerable<RegisterRead> Reads => _reads;

    /// <summary>The results of the acknowledged increments of the shared counter.</summary>
    public IEnumerable<long> Increments => _increments;

    /// <summary>A write of <paramref name="value"/> to <paramref name="register"/>, sent at <paramref name="sent"/>, acknowledged at <paramref name="acknowledged"/> (null: not acknowledged).</summary>
    public void Wrote(int register, long value, long sent, long? acknowledged, string via) => _writes.Enqueue(new(register, value, sent, acknowledged, via));

    /// <summary>An increment of the shared counter was acknowledged with <paramref name="result"/>.</summary>
    public void Incremented(long result) => _increments.Enqueue(result);

    /// <summary>A read of <paramref name="register"/> begun at <paramref name="began"/> that returned <paramref name="value"/> (0: nothing).</summary>
    public void Read(int register, long value, long began, long ended, string via) => _reads.Enqueue(new(register, value, began, ended, via));
}

/// <summary>One write of a register.</summary>
internal sealed record RegisterWrite(int Register, long Value, long Sent, long? Acknowledged, string Via);

/// <summary>One read of a register.</summary>
internal sealed record RegisterRead(int Register, long Value, long Began, long Ended, string Via);
