using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

public sealed class ContentRootTests
{
    [Fact]
    public async Task A_silo_started_from_the_root_directory_watches_only_its_own_directory_for_configuration()
    {
        // A service manager starts a process in /. With the working directory as content root, the configuration's
        // change watcher followed the whole file system: tens of thousands of inotify watches.
        using var silo = SiloProcess.Start(SiloProcess.FreePort(), SiloProcess.FreePort(), [], workingDirectory: "/");
        await silo.WaitUntilReadyAsync(TimeSpan.FromSeconds(60));

        var watches = InotifyWatches(silo.ProcessId);
        Assert.True(watches is > 0 and < 1000, $"The silo holds {watches} inotify watches.{Environment.NewLine}{silo.Output}");
    }

    /// <summary>The inotify watches <paramref name="processId"/> holds, over all its inotify instances.</summary>
    private static int InotifyWatches(int processId)
    {
        var watches = 0;
        foreach (var descriptor in Directory.EnumerateFileSystemEntries($"/proc/{processId}/fd"))
        {
            if (new FileInfo(descriptor).LinkTarget is "anon_inode:inotify")
            {
                watches += File.ReadLines($"/proc/{processId}/fdinfo/{Path.GetFileName(descriptor)}").Count(static line => line.StartsWith("inotify wd:", StringComparison.Ordinal));
            }
        }

        return watches;
    }
}
