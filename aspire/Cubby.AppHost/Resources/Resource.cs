namespace Cubby.AppHost.Resources;

/// <summary>Something the dev environment runs: started in order, health-waited, watched, and stopped in stages.</summary>
internal abstract class Resource(string name)
{
    public string Name { get; } = name;

    /// <summary>When it stops relative to the others.</summary>
    public abstract StopStage StopStage { get; }

    /// <summary>Completes, with the exit code, when the resource's process exits; never for one without a process.</summary>
    public abstract Task<int> Exited { get; }

    /// <summary>The processes it started, for the summary (and for tests that check they are gone).</summary>
    public abstract IReadOnlyList<int> ProcessIds { get; }

    /// <summary>Starts the resource's process, without waiting for it to serve.</summary>
    public abstract Task LaunchAsync(CancellationToken cancellationToken);

    /// <summary>Polls until the resource serves, within the start timeout.</summary>
    public abstract Task WaitHealthyAsync(CancellationToken cancellationToken);

    /// <summary>Stops the resource (killing it if it does not stop in time, or at once when <paramref name="force"/> fires) and cleans up after it.</summary>
    public abstract Task StopAsync(CancellationToken force);

    /// <summary>One line for the console: its process id and URLs as <c>key=value</c> pairs.</summary>
    public abstract string Describe();
}

/// <summary>
/// The order of stopping: the silos first, one at a time, so each hands its slots to those still running; then the
/// apps; then what the silos needed (PostgreSQL, which a leaving silo writes its departure to).
/// </summary>
internal enum StopStage
{
    Cluster = 0,
    Apps = 1,
    Infrastructure = 2,
}
