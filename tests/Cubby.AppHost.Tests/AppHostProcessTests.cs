namespace Cubby.AppHost.Tests;

/// <summary>The AppHost as a process, as a developer runs it: stopped by a signal while it is still starting.</summary>
public sealed class AppHostProcessTests
{
    private static readonly TimeSpan ExitTimeout = TimeSpan.FromSeconds(90);

    [Fact]
    public async Task SIGTERM_while_resources_are_still_starting_stops_every_process_it_started_and_deletes_the_database_folder()
    {
        using var host = AppHostProcess.Start();

        // PostgreSQL is up and the silos, which wait for it, are not yet healthy: the middle of the start.
        await Poll.UntilAsync(() => host.Started().Any(static pid => ProcessTree.CommandLineOf(pid).Contains("/bin/postgres -D ", StringComparison.Ordinal)),
            RunningApp.StartTimeout, $"PostgreSQL to start\n{host.Output}");
        var started = host.Started();
        var database = AppHostTests.DatabaseFolderOf(started);
        host.Terminate();

        await host.WaitForExitAsync(ExitTimeout);
        await Poll.UntilAsync(() => host.Started().Count == 0, TimeSpan.FromSeconds(60),
            $"every process the AppHost started to exit; left: {string.Join("; ", host.Started().Select(ProcessTree.CommandLineOf))}");
        await Poll.UntilAsync(() => !Directory.Exists(database), TimeSpan.FromSeconds(30), $"{database} to be deleted");
    }
}
