using Cubby.Silo.Protocol;

namespace Cubby.Tests.Silo;

public sealed class PipelinedConnectionsTests
{
    [Fact]
    public void A_connection_counts_while_its_last_read_held_a_deep_batch()
    {
        var connections = new PipelinedConnections();
        bool first = false, second = false;

        connections.Ran(ref first, 16);
        connections.Ran(ref first, PipelinedConnections.DeepBatch);
        Assert.True(first);
        Assert.Equal(1, connections.Count);

        connections.Ran(ref second, PipelinedConnections.DeepBatch - 1);
        Assert.False(second);
        Assert.Equal(1, connections.Count);

        connections.Ran(ref second, 100);
        Assert.Equal(2, connections.Count);

        connections.Ran(ref first, 1);
        Assert.False(first);
        Assert.Equal(1, connections.Count);

        connections.Closed(ref second);
        connections.Closed(ref first);
        Assert.Equal(0, connections.Count);
    }

    [Fact]
    public async Task Batches_leave_an_event_thread_only_while_several_connections_pipeline()
    {
        var connections = new PipelinedConnections();
        bool pipelining = false, other = false, quiet = false;
        connections.Ran(ref pipelining, 16);
        connections.Ran(ref quiet, 3);

        // A lone pipelining connection stays where it is; so does one that sends a few commands at a time.
        Assert.False(OnOwnThread(() => connections.ShouldOffload(pipelining)));

        connections.Ran(ref other, 16);
        Assert.True(OnOwnThread(() => connections.ShouldOffload(pipelining)));
        Assert.False(OnOwnThread(() => connections.ShouldOffload(quiet)));

        // Already on the pool: nothing to leave.
        Assert.False(await Task.Run(() => connections.ShouldOffload(pipelining)));
    }

    /// <summary>Runs <paramref name="decide"/> on a thread outside the pool, as a socket event thread is.</summary>
    private static bool OnOwnThread(Func<bool> decide)
    {
        var decided = false;
        var thread = new Thread(() => decided = decide());
        thread.Start();
        thread.Join();
        return decided;
    }
}
