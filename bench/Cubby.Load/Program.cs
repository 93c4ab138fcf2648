using System.Runtime.InteropServices;
using Cubby.Load.Allocation;
using Cubby.Load.Cluster;
using Cubby.Load.Reports;
using Cubby.Load.Soak;

namespace Cubby.Load;

/// <summary>
/// <c>dotnet run --project bench/Cubby.Load -c Release -- [--quick] [--rounds N] [--out DIR]</c>: Cubby, Redis and
/// Garnet on loopback, the same workloads against each, results as JSON, Markdown and SVG. <c>-- soak [options]</c>
/// runs one silo under mixed load for minutes instead (<see cref="SoakOptions"/>); <c>-- alloc</c> measures what a client
/// Get allocates on each side (<see cref="AllocationCommand"/>); <c>-- cluster</c> a gateway client's Gets against one silo
/// process and against several (<see cref="ClusterCommand"/>); <c>-- nearcache</c> near caches side by side
/// (<see cref="NearCache.NearCacheCommand"/>); <c>-- hybrid-tags</c> Cubby's HybridCache removing a tag over several silos
/// (<see cref="Hybrid.TagRemovalCommand"/>); <c>-- faults</c> silos in network namespaces under a random schedule of faults, and what
/// clients saw checked (<see cref="Faults.FaultsCommand"/>); <c>-- delay</c> the same cluster with its silo links held
/// a network's delay (<see cref="Faults.DelayCommand"/>); <c>-- replicas</c> the cost of <c>Cubby:Replicas</c> on 3 silos
/// (<see cref="Replicas.ReplicasCommand"/>); <c>-- persistence</c> what <c>Cubby:Persistence</c> costs a SET, how long a
/// restart takes to load 1M entries and the bytes on disk, beside Redis's AOF and RDB
/// (<see cref="Persistence.PersistenceCommand"/>).
/// </summary>
internal static class Program
{
    public static async Task<int> Main(string[] args)
    {
        if (args is ["soak", .. var soakArguments])
        {
            Console.CancelKeyPress += (_, _) => ServerProcess.KillAll();
            AppDomain.CurrentDomain.ProcessExit += (_, _) => ServerProcess.KillAll();
            try
            {
                return await SoakCommand.RunAsync(soakArguments, Console.Out).ConfigureAwait(false);
            }
            catch (HarnessException exception)
            {
                await Console.Error.WriteLineAsync($"error: {exception.Message}").ConfigureAwait(false);
                return 1;
            }
        }

        if (args is ["alloc", .. var allocationArguments])
        {
            return await RunCommandAsync(() => AllocationCommand.RunAsync(allocationArguments, Console.Out)).ConfigureAwait(false);
        }

        if (args is ["cluster", .. var clusterArguments])
        {
            return await RunCommandAsync(() => ClusterCommand.RunAsync(clusterArguments, Console.Out)).ConfigureAwait(false);
        }

        if (args is ["tracking", .. var trackingArguments])
        {
            return await RunCommandAsync(() => Tracking.TrackingCommand.RunAsync(trackingArguments, Console.Out)).ConfigureAwait(false);
        }

        if (args is ["nearcache", .. var nearCacheArguments])
        {
            return await RunCommandAsync(() => NearCache.NearCacheCommand.RunAsync(nearCacheArguments, Console.Out)).ConfigureAwait(false);
        }

        if (args is ["nearcache-worker", .. var workerArguments])
        {
            return await RunCommandAsync(() => NearCache.NearCacheWorker.RunAsync(workerArguments)).ConfigureAwait(false);
        }

        if (args is ["hybrid-tags", .. var tagArguments])
        {
            return await RunCommandAsync(() => Hybrid.TagRemovalCommand.RunAsync(tagArguments, Console.Out)).ConfigureAwait(false);
        }

        if (args is ["faults", .. var faultArguments])
        {
            // Stopped by a signal, it still takes down the silos, PostgreSQL and the namespaces it made.
            using var stop = new CancellationTokenSource();
            using var interrupt = PosixSignalRegistration.Create(PosixSignal.SIGINT, Stop);
            using var terminate = PosixSignalRegistration.Create(PosixSignal.SIGTERM, Stop);
            try
            {
                return await RunCommandAsync(() => Faults.FaultsCommand.RunAsync(faultArguments, Console.Out, stop.Token)).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (stop.IsCancellationRequested)
            {
                await Console.Error.WriteLineAsync("stopped by a signal; the fault network and its silos are gone").ConfigureAwait(false);
                return 130;
            }

            void Stop(PosixSignalContext context)
            {
                context.Cancel = true;
                stop.Cancel();
            }
        }

        if (args is ["delay", .. var delayArguments])
        {
            return await RunCommandAsync(() => Faults.DelayCommand.RunAsync(delayArguments, Console.Out)).ConfigureAwait(false);
        }

        if (args is ["replicas", .. var replicasArguments])
        {
            return await RunCommandAsync(() => Replicas.ReplicasCommand.RunAsync(replicasArguments, Console.Out)).ConfigureAwait(false);
        }

        if (args is ["persistence", .. var persistenceArguments])
        {
            return await RunCommandAsync(() => Persistence.PersistenceCommand.RunAsync(persistenceArguments, Console.Out)).ConfigureAwait(false);
        }

        if (args.Contains("--help") || args.Contains("-h"))
        {
            Console.WriteLine(HarnessOptions.Usage);
            return 0;
        }

        if (!HarnessOptions.TryParse(args, out var options, out var error))
        {
            await Console.Error.WriteLineAsync($"{error}\n\n{HarnessOptions.Usage}").ConfigureAwait(false);
            return 2;
        }

        Console.CancelKeyPress += (_, _) => ServerProcess.KillAll();
        AppDomain.CurrentDomain.ProcessExit += (_, _) => ServerProcess.KillAll();
        var log = Console.Out;
        try
        {
            var root = RepositoryRoot.Find();
            var tools = await Prerequisites.EnsureAsync(options, root, log).ConfigureAwait(false);
            await log.WriteLineAsync($"Redis {tools.RedisVersion} ({tools.RedisServer}), Garnet {tools.GarnetVersion} ({tools.Garnet}), gnuplot {tools.Gnuplot ?? "missing"}, silo {tools.Silo}.").ConfigureAwait(false);
            if (options.InstallOnly)
            {
                return tools.Gnuplot is null ? 1 : 0;
            }

            await log.WriteLineAsync($"{options.Rounds} round(s), {(options.Quick ? "quick" : "full")}.").ConfigureAwait(false);
            var report = await new Harness(options, tools, log).RunAsync().ConfigureAwait(false);

            var directory = options.OutputDirectory ?? Path.Combine(root, "bench", "results");
            Directory.CreateDirectory(directory);
            var stem = Path.Combine(directory, options.ReportName);
            var markdown = MarkdownReport.Write(report, options.Servers);
            await File.WriteAllTextAsync(stem + ".json", JsonReport.Write(report)).ConfigureAwait(false);
            await File.WriteAllTextAsync(stem + ".md", markdown).ConfigureAwait(false);
            if (tools.Gnuplot is not null)
            {
                await GnuplotChart.WriteAsync(report, options.Servers, tools.Gnuplot, stem + ".svg").ConfigureAwait(false);
            }

            await log.WriteLineAsync($"\n{markdown}\nWrote {stem}.json, .md{(tools.Gnuplot is null ? string.Empty : ", .svg")}").ConfigureAwait(false);
            return report.Rows.Any(r => r.OpsPerSecond is null) ? 1 : 0;
        }
        catch (HarnessException exception)
        {
            await Console.Error.WriteLineAsync($"error: {exception.Message}").ConfigureAwait(false);
            return 1;
        }
        finally
        {
            ServerProcess.KillAll();
        }
    }

    /// <summary>Runs a command that starts its own servers; a harness error is printed, and every server is stopped.</summary>
    private static async Task<int> RunCommandAsync(Func<Task<int>> command)
    {
        try
        {
            return await command().ConfigureAwait(false);
        }
        catch (HarnessException exception)
        {
            await Console.Error.WriteLineAsync($"error: {exception.Message}").ConfigureAwait(false);
            return 1;
        }
        finally
        {
            ServerProcess.KillAll();
        }
    }
}
