using System.Diagnostics;

namespace Cubby.Load.Faults;

/// <summary>
/// Checks a <see cref="ClientHistory"/> against what Cubby promises. Of a register with one writer: a read never
/// returns a value older than one whose write was acknowledged before the read began (a stale read), and once the
/// faults are over, every register reads back at least its last acknowledged value (else the write was lost). Of the
/// shared counter: no two acknowledged increments returned the same result, and it reads back at least the largest. Of
/// the accounts: every snapshot and the final read add up to the total they started with (a transfer is all or
/// nothing). Of the watched key: no two transactions committed the same value (WATCH let no conflicting EXEC through),
/// and it reads back at least the largest committed.
/// </summary>
internal static class HistoryChecker
{
    /// <summary>
    /// The violations in <paramref name="history"/>, each with the operations that show it; <paramref name="final"/> is
    /// what each register read back after the faults ended (register to value, 0 for nothing), and
    /// <paramref name="finalCounter"/>, <paramref name="finalWatched"/> and <paramref name="finalTotal"/> what the
    /// counter, the watched key and the accounts did; <paramref name="total"/> is what the accounts started with.
    /// </summary>
    public static HistoryReport Check(ClientHistory history, IReadOnlyDictionary<int, long> final, long finalCounter = 0, long finalWatched = 0, long total = 0, long finalTotal = 0)
    {
        // Per register, its acknowledged writes by acknowledgment time, and the largest value acknowledged by then.
        var acknowledged = history.Writes
            .Where(static write => write.Acknowledged is not null)
            .GroupBy(static write => write.Register)
            .ToDictionary(static group => group.Key, static group => Prefix(group.OrderBy(static write => write.Acknowledged!.Value)));

        var stale = new List<StaleRead>();
        var reads = 0;
        foreach (var read in history.Reads)
        {
            reads++;
            if (acknowledged.TryGetValue(read.Register, out var writes) && FirstNewerBefore(writes, read.Value, read.Began) is { } newer)
            {
                stale.Add(new StaleRead(read, newer, Stopwatch.GetElapsedTime(newer.Acknowledged!.Value, read.Began)));
            }
        }

        var lost = new List<LostWrite>();
        foreach (var (register, writes) in acknowledged)
        {
            var last = writes[^1].Write;
            var readBack = final.GetValueOrDefault(register);
            if (readBack < last.Value)
            {
                lost.Add(new LostWrite(last, readBack, writes.First(write => write.Write.Value > readBack).Write));
            }
        }

        var increments = history.Increments.ToList();
        var largest = increments.Count == 0 ? 0 : increments.Max();
        var commits = history.Commits.ToList();
        var largestCommit = commits.Count == 0 ? 0 : commits.Max();
        var snapshots = history.Snapshots.ToList();
        return new HistoryReport(reads, acknowledged.Values.Sum(static writes => writes.Length), stale, lost)
        {
            Increments = increments.Count,
            DuplicateIncrements = Duplicates(increments),
            CounterBehind = finalCounter < largest ? largest - finalCounter : 0,
            Snapshots = snapshots.Count,
            TornSnapshots = [.. snapshots.Where(snapshot => snapshot.Total != total)],
            TornExplained = [.. snapshots.Where(snapshot => snapshot.Total != total).Take(3).Select(torn => Explain(torn, snapshots, history.Transfers, total))],
            TotalChange = finalTotal - total,
            Commits = commits.Count,
            DuplicateCommits = Duplicates(commits),
            WatchedBehind = finalWatched < largestCommit ? largestCommit - finalWatched : 0,
            LongestWithoutWrite = LongestGap(history.Answered, out var since),
            LongestWithoutWriteSince = since,
        };
    }

    private static List<long> Duplicates(List<long> results) =>
        [.. results.GroupBy(static result => result).Where(static group => group.Count() > 1).Select(static group => group.Key).Order()];

    /// <summary>The longest time between two acknowledged writes in a row, of any kind, from the first to the last.</summary>
    private static TimeSpan LongestGap(IEnumerable<long> answered, out long since)
    {
        var times = answered.Order().ToArray();
        var longest = TimeSpan.Zero;
        since = 0;
        for (var i = 1; i < times.Length; i++)
        {
            var gap = Stopwatch.GetElapsedTime(times[i - 1], times[i]);
            if (gap > longest)
            {
                (longest, since) = (gap, times[i - 1]);
            }
        }

        return longest;
    }

    /// <summary>Each write with the largest value acknowledged up to it (acknowledgments may come out of order).</summary>
    private static (RegisterWrite Write, long Largest)[] Prefix(IEnumerable<RegisterWrite> ordered)
    {
        var largest = long.MinValue;
        return [.. ordered.Select(write => (write, largest = Math.Max(largest, write.Value)))];
    }

    /// <summary>
    /// The first write acknowledged with a value above <paramref name="value"/>, if that was before
    /// <paramref name="time"/>: the read that began then and returned <paramref name="value"/> was stale since.
    /// </summary>
    private static RegisterWrite? FirstNewerBefore((RegisterWrite Write, long Largest)[] writes, long value, long time)
    {
        // The running largest value only grows along the acknowledgments: the first above the value is found by halving.
        int low = 0, high = writes.Length - 1, found = -1;
        while (low <= high)
        {
            var middle = (low + high) / 2;
            if (writes[middle].Largest > value)
            {
                found = middle;
                high = middle - 1;
            }
            else
            {
                low = middle + 1;
            }
        }

        return found >= 0 && writes[found].Write.Acknowledged!.Value < time ? writes[found].Write : null;
    }

    /// <summary>
    /// What a torn snapshot saw against the last whole one begun before it: the accounts that moved, and the transfers
    /// of the missing amount on those accounts that were under way between the two (their answers say which went wrong).
    /// </summary>
    private static TornSnapshot Explain(Snapshot torn, List<Snapshot> snapshots, IEnumerable<Transfer> transfers, long total)
    {
        var before = snapshots.Where(snapshot => snapshot.Total == total && snapshot.Began < torn.Began).MaxBy(static snapshot => snapshot.Began);
        var moved = before is null ? [] : Enumerable.Range(0, torn.Balances.Length).Where(account => torn.Balances[account] != before.Balances[account]).ToArray();
        var missing = Math.Abs(torn.Total - total);
        var since = before?.Began ?? long.MinValue;
        var suspects = transfers
            .Where(transfer => transfer.Amount == missing && (moved.Contains(transfer.From) || moved.Contains(transfer.To)) && transfer.Answered >= since && transfer.Sent <= torn.Began)
            .OrderBy(static transfer => transfer.Sent)
            .Take(8)
            .ToArray();
        return new TornSnapshot(torn, before, moved, suspects);
    }
}

/// <summary>A torn snapshot, the last whole one before it, the accounts that differ, and the transfers that may explain it.</summary>
internal sealed record TornSnapshot(Snapshot Torn, Snapshot? Before, int[] Moved, Transfer[] Suspects);

/// <summary>What <see cref="HistoryChecker"/> found.</summary>
internal sealed record HistoryReport(int Reads, int AcknowledgedWrites, IReadOnlyList<StaleRead> Stale, IReadOnlyList<LostWrite> Lost)
{
    /// <summary>Acknowledged increments of the counter.</summary>
    public int Increments { get; init; }

    /// <summary>Results that more than one acknowledged increment returned.</summary>
    public IReadOnlyList<long> DuplicateIncrements { get; init; } = [];

    /// <summary>How far the counter read back below the largest result acknowledged (0 when not).</summary>
    public long CounterBehind { get; init; }

    /// <summary>Snapshots of the accounts read.</summary>
    public int Snapshots { get; init; }

    /// <summary>Snapshots whose total was not the accounts' starting total: they saw part of a transfer.</summary>
    public IReadOnlyList<Snapshot> TornSnapshots { get; init; } = [];

    /// <summary>The first torn snapshots, each against the last whole one before it, with the transfers that may explain it.</summary>
    public IReadOnlyList<TornSnapshot> TornExplained { get; init; } = [];

    /// <summary>How far the accounts' total read back after the faults moved from the start (0: every transfer was whole).</summary>
    public long TotalChange { get; init; }

    /// <summary>Watched transactions that committed.</summary>
    public int Commits { get; init; }

    /// <summary>Values that more than one watched transaction committed: WATCH let a conflicting EXEC through.</summary>
    public IReadOnlyList<long> DuplicateCommits { get; init; } = [];

    /// <summary>How far the watched key read back below the largest value committed (0 when not).</summary>
    public long WatchedBehind { get; init; }

    /// <summary>The longest time no write of any kind was acknowledged, from the first to the last.</summary>
    public TimeSpan LongestWithoutWrite { get; init; }

    /// <summary>When that stretch began (a <see cref="Stopwatch"/> timestamp).</summary>
    public long LongestWithoutWriteSince { get; init; }

    public bool Passed =>
        Stale.Count == 0 && Lost.Count == 0 && DuplicateIncrements.Count == 0 && CounterBehind == 0
        && TornSnapshots.Count == 0 && TotalChange == 0 && DuplicateCommits.Count == 0 && WatchedBehind == 0;

    /// <summary>The oldest a stale read was: how long before it began a newer value had first been acknowledged.</summary>
    public TimeSpan OldestStale => Stale.Count == 0 ? TimeSpan.Zero : Stale.Max(static read => read.Behind);
}

/// <summary>A read whose value had been superseded by an acknowledged write <see cref="Behind"/> before it began.</summary>
internal sealed record StaleRead(RegisterRead Read, RegisterWrite Newer, TimeSpan Behind);

/// <summary>
/// A register whose last acknowledged write did not read back after the faults; <see cref="FirstLost"/> is the first
/// acknowledged write of a value above what read back.
/// </summary>
internal sealed record LostWrite(RegisterWrite Write, long ReadBack, RegisterWrite FirstLost);
