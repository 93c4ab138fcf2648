using Cubby.Silo.Hosting;

namespace Cubby.Silo.Cluster.Routing;

/// <summary>Waiting for the cluster to change: a slot arriving or leaving, or a new view.</summary>
internal static class ClusterChanges
{
    /// <summary>Completes at the next change; take it before deciding, so no change is missed in between.</summary>
    public static Task Next(ClusterState cluster) => Task.WhenAny(cluster.Slots.Changed, cluster.ViewChanged);

    /// <summary>False when <paramref name="deadline"/> passed first.</summary>
    public static async ValueTask<bool> WaitAsync(SiloRuntime silo, Task changed, DateTimeOffset deadline)
    {
        var remaining = deadline - silo.Time.GetUtcNow();
        if (remaining <= TimeSpan.Zero)
        {
            return false;
        }

        try
        {
            await changed.WaitAsync(remaining, silo.Time).ConfigureAwait(false);
            return true;
        }
        catch (TimeoutException)
        {
            return false;
        }
    }
}
