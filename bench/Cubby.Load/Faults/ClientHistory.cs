using System.Collections.Concurrent;

namespace Cubby.Load.Faults;

/// <summary>
/// What clients did while faults ran. Registers: each has one writer, which writes it increasing numbers, and any number
/// of readers. A counter that every incrementer raises by one. Accounts that MULTI transactions move amounts between,
/// whose total never changes, read together in transactions (snapshots). A key raised by one through WATCH, GET, MULTI,
/// SET, EXEC, so that no two transactions may commit the same value. Times are
/// <see cref="System.Diagnostics.Stopwatch"/> timestamps of this process. A write that failed or timed out has no
/// acknowledgment: it may or may not have been applied. Thread-safe.
/// </summary>
internal sealed class ClientHistory
{
    private readonly ConcurrentQueue<RegisterWrite> _writes = new();
    private readonly ConcurrentQueue<RegisterRead> _reads = new();
    private readonly ConcurrentQueue<long> _increments = new();
    private readonly ConcurrentQueue<Snapshot> _snapshots = new();
    private readonly ConcurrentQueue<Transfer> _transfers = new();
    private readonly ConcurrentQueue<long> _commits = new();
    private readonly ConcurrentQueue<long> _answered = new();

    public IEnumerable<RegisterWrite> Writes => _writes;

    public IEnumerable<RegisterRead> Reads => _reads;

    /// <summary>The results of the acknowledged increments of the shared counter.</summary>
    public IEnumerable<long> Increments => _increments;

    /// <summary>The totals of the accounts read in one transaction.</summary>
    public IEnumerable<Snapshot> Snapshots => _snapshots;

    /// <summary>Every transfer tried, answered or not: what a torn snapshot is explained by.</summary>
    public IEnumerable<Transfer> Transfers => _transfers;

    /// <summary>The values that watched transactions committed.</summary>
    public IEnumerable<long> Commits => _commits;

    /// <summary>When each acknowledged write of any kind was answered.</summary>
    public IEnumerable<long> Answered => _answered.Concat(_writes.Where(static write => write.Acknowledged is not null).Select(static write => write.Acknowledged!.Value));

    /// <summary>A write of <paramref name="value"/> to <paramref name="register"/>, sent at <paramref name="sent"/>, acknowledged at <paramref name="acknowledged"/> (null: not acknowledged).</summary>
    public void Wrote(int register, long value, long sent, long? acknowledged, string via) => _writes.Enqueue(new(register, value, sent, acknowledged, via));

    /// <summary>An increment of the shared counter was acknowledged with <paramref name="result"/> at <paramref name="acknowledged"/>.</summary>
    public void Incremented(long result, long acknowledged = 0)
    {
        _increments.Enqueue(result);
        AnsweredAt(acknowledged);
    }

    /// <summary>A read of <paramref name="register"/> begun at <paramref name="began"/> that returned <paramref name="value"/> (0: nothing).</summary>
    public void Read(int register, long value, long began, long ended, string via) => _reads.Enqueue(new(register, value, began, ended, via));

    /// <summary>A transfer tried, and what came back: an acknowledged write when it was <see cref="Transfer.Kept"/>.</summary>
    public void Transferred(Transfer transfer)
    {
        _transfers.Enqueue(transfer);
        if (transfer.Outcome == Transfer.Kept)
        {
            AnsweredAt(transfer.Answered);
        }
    }

    /// <summary>
    /// The accounts, read in one transaction begun at <paramref name="began"/> and answered at <paramref name="answered"/>,
    /// held <paramref name="balances"/>.
    /// </summary>
    public void Snapshotted(long[] balances, long began, long answered, string via) => _snapshots.Enqueue(new(balances.Sum(), balances, began, answered, via));

    /// <summary>A watched transaction committed <paramref name="value"/> at <paramref name="acknowledged"/>.</summary>
    public void Committed(long value, long acknowledged = 0)
    {
        _commits.Enqueue(value);
        AnsweredAt(acknowledged);
    }

    private void AnsweredAt(long acknowledged)
    {
        if (acknowledged != 0)
        {
            _answered.Enqueue(acknowledged);
        }
    }
}

/// <summary>One write of a register.</summary>
internal sealed record RegisterWrite(int Register, long Value, long Sent, long? Acknowledged, string Via);

/// <summary>One read of a register.</summary>
internal sealed record RegisterRead(int Register, long Value, long Began, long Ended, string Via);

/// <summary>The accounts as one transaction read them, and their total.</summary>
internal sealed record Snapshot(long Total, long[] Balances, long Began, long Answered, string Via);

/// <summary>
/// A transfer of <paramref name="Amount"/> from one account to another, sent at <paramref name="Sent"/> and answered at
/// <paramref name="Answered"/>: <see cref="Kept"/>, "not committed", or the error that came back.
/// </summary>
internal sealed record Transfer(int From, int To, long Amount, long Sent, long Answered, string Outcome, string Via)
{
    public const string Kept = "kept";
}
