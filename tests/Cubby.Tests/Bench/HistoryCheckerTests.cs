using Cubby.Load.Faults;

namespace Cubby.Tests.Bench;

/// <summary>The fault harness's checker on histories made by hand: what it must flag, and what it must let pass.</summary>
public sealed class HistoryCheckerTests
{
    [Fact]
    public void A_read_of_a_value_older_than_one_acknowledged_before_it_began_is_stale()
    {
        var history = new ClientHistory();
        history.Wrote(1, 1, sent: 10, acknowledged: 20, via: "a");
        history.Wrote(1, 2, sent: 30, acknowledged: 40, via: "a");
        history.Read(1, 1, began: 50, ended: 60, via: "b");
        history.Read(1, 2, began: 50, ended: 60, via: "c");

        var report = HistoryChecker.Check(history, new Dictionary<int, long> { [1] = 2 });

        var stale = Assert.Single(report.Stale);
        Assert.Equal("b", stale.Read.Via);
        Assert.Equal(2, stale.Newer.Value);
        Assert.Equal(System.Diagnostics.Stopwatch.GetElapsedTime(40, 50), stale.Behind);
        Assert.Empty(report.Lost);
        Assert.False(report.Passed);
    }

    [Fact]
    public void Reads_overlapping_a_write_and_writes_never_acknowledged_may_return_either_value()
    {
        var history = new ClientHistory();
        history.Wrote(1, 1, sent: 10, acknowledged: 20, via: "a");
        history.Wrote(1, 2, sent: 30, acknowledged: 40, via: "a");
        history.Wrote(1, 3, sent: 50, acknowledged: null, via: "a");

        // Began before the acknowledgment of 2: 1 is still a right answer; 3 may have been applied.
        history.Read(1, 1, began: 35, ended: 45, via: "b");
        history.Read(1, 3, began: 60, ended: 70, via: "b");
        history.Read(1, 2, began: 60, ended: 70, via: "b");

        var report = HistoryChecker.Check(history, new Dictionary<int, long> { [1] = 2 });

        Assert.True(report.Passed);
        Assert.Equal(3, report.Reads);
        Assert.Equal(2, report.AcknowledgedWrites);
    }

    [Fact]
    public void A_stale_read_is_as_old_as_the_first_write_that_superseded_its_value()
    {
        var history = new ClientHistory();
        history.Wrote(1, 1, sent: 10, acknowledged: 20, via: "a");
        history.Wrote(1, 2, sent: 30, acknowledged: 40, via: "a");
        history.Wrote(1, 3, sent: 50, acknowledged: 60, via: "a");
        history.Read(1, 1, began: 70, ended: 80, via: "b");

        var stale = Assert.Single(HistoryChecker.Check(history, new Dictionary<int, long> { [1] = 3 }).Stale);

        Assert.Equal(2, stale.Newer.Value);
        Assert.Equal(System.Diagnostics.Stopwatch.GetElapsedTime(40, 70), stale.Behind);
    }

    [Fact]
    public void Acknowledgments_out_of_order_count_the_largest_value_acknowledged_by_then()
    {
        var history = new ClientHistory();
        history.Wrote(1, 2, sent: 10, acknowledged: 20, via: "a");
        history.Wrote(1, 1, sent: 5, acknowledged: 25, via: "a");
        history.Read(1, 1, began: 30, ended: 35, via: "b");

        var report = HistoryChecker.Check(history, new Dictionary<int, long> { [1] = 2 });

        Assert.Equal(2, Assert.Single(report.Stale).Newer.Value);
    }

    [Fact]
    public void A_register_that_reads_back_less_than_its_last_acknowledged_value_lost_a_write()
    {
        var history = new ClientHistory();
        history.Wrote(1, 1, sent: 10, acknowledged: 20, via: "a");
        history.Wrote(2, 5, sent: 10, acknowledged: 20, via: "a");
        history.Wrote(2, 6, sent: 30, acknowledged: 40, via: "a");
        history.Wrote(2, 7, sent: 50, acknowledged: 60, via: "a");

        var report = HistoryChecker.Check(history, new Dictionary<int, long> { [1] = 1, [2] = 5 });

        var lost = Assert.Single(report.Lost);
        Assert.Equal((2, 7, 5), (lost.Write.Register, lost.Write.Value, lost.ReadBack));
        Assert.Equal(40, lost.FirstLost.Acknowledged);
    }

    [Fact]
    public void Two_increments_acknowledged_with_one_result_or_a_counter_read_back_lower_fail_the_check()
    {
        var history = new ClientHistory();
        foreach (var result in new long[] { 1, 2, 3, 3, 5 })
        {
            history.Incremented(result);
        }

        var report = HistoryChecker.Check(history, new Dictionary<int, long>(), finalCounter: 4);

        Assert.Equal(5, report.Increments);
        Assert.Equal([3L], report.DuplicateIncrements);
        Assert.Equal(1, report.CounterBehind);
        Assert.False(report.Passed);
        Assert.True(HistoryChecker.Check(history, new Dictionary<int, long>(), finalCounter: 5) is { CounterBehind: 0 });
    }

    [Fact]
    public void A_snapshot_or_a_final_total_off_the_accounts_starting_total_shows_a_transfer_in_part()
    {
        var history = new ClientHistory();
        history.Snapshotted([4000, 4000], began: 10, answered: 11, via: "a");
        history.Snapshotted([3995, 4000], began: 20, answered: 21, via: "b");
        history.Transferred(new Transfer(0, 1, 5, Sent: 12, Answered: 30, "TRYAGAIN the transaction was rolled back", "a"));
        history.Transferred(new Transfer(1, 0, 3, Sent: 12, Answered: 14, Transfer.Kept, "a"));

        var report = HistoryChecker.Check(history, new Dictionary<int, long>(), total: 8000, finalTotal: 8010);

        Assert.Equal(2, report.Snapshots);
        Assert.Equal("b", Assert.Single(report.TornSnapshots).Via);
        var explained = Assert.Single(report.TornExplained);
        Assert.Equal(10, explained.Before!.Began);
        Assert.Equal([0], explained.Moved);
        Assert.Equal(5, Assert.Single(explained.Suspects).Amount);
        Assert.Equal(10, report.TotalChange);
        Assert.False(report.Passed);
        Assert.True(HistoryChecker.Check(new ClientHistory(), new Dictionary<int, long>(), total: 8000, finalTotal: 8000).Passed);
    }

    [Fact]
    public void Two_watched_transactions_that_committed_one_value_let_a_conflict_through()
    {
        var history = new ClientHistory();
        foreach (var value in new long[] { 1, 2, 2, 3 })
        {
            history.Committed(value);
        }

        var report = HistoryChecker.Check(history, new Dictionary<int, long>(), finalWatched: 3);

        Assert.Equal(4, report.Commits);
        Assert.Equal([2L], report.DuplicateCommits);
        Assert.Equal(0, report.WatchedBehind);
        Assert.False(report.Passed);
        Assert.Equal(1, HistoryChecker.Check(history, new Dictionary<int, long>(), finalWatched: 2).WatchedBehind);
    }

    [Fact]
    public void The_longest_stretch_without_an_acknowledged_write_counts_every_kind_of_write()
    {
        var frequency = System.Diagnostics.Stopwatch.Frequency;
        var history = new ClientHistory();
        history.Wrote(1, 1, sent: 0, acknowledged: frequency, via: "a");
        history.Wrote(1, 2, sent: 0, acknowledged: null, via: "a");
        history.Incremented(1, acknowledged: 2 * frequency);
        history.Committed(1, acknowledged: 5 * frequency);
        history.Transferred(new Transfer(0, 1, 1, Sent: 0, Answered: 6 * frequency, Transfer.Kept, "a"));

        var report = HistoryChecker.Check(history, new Dictionary<int, long> { [1] = 1 }, finalCounter: 1, finalWatched: 1);

        Assert.Equal(TimeSpan.FromSeconds(3), report.LongestWithoutWrite);
        Assert.True(report.Passed);
    }
}
