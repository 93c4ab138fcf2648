using System.Diagnostics;
using Cubby.AppHost.Resources;

namespace Cubby.AppHost;

/// <summary>
/// Runs the resources: starts each once the previous one is healthy, prints them, and then waits for Ctrl+C (or
/// SIGTERM) to stop them in stages. Nothing is restarted: a resource that exits on its own stops the whole run with
/// exit code 1.
/// </summary>
internal sealed class DevEnvironment(IReadOnlyList<Resource> resources, ConsoleOutput output)
{
    private volatile bool _stopping;

    public async Task<int> RunAsync()
    {
        using var signals = new ShutdownSignals(output);
        using var failed = new CancellationTokenSource();
        using var lifetime = CancellationTokenSource.CreateLinkedTokenSource(signals.Stopping, failed.Token);
        var launched = new List<Resource>();
        var exitCode = 0;
        try
        {
            var started = Stopwatch.GetTimestamp();
            foreach (var resource in resources)
            {
                output.Info($"Starting {resource.Name}...");
                launched.Add(resource);
                await resource.LaunchAsync(lifetime.Token).ConfigureAwait(false);
                _ = WatchAsync(resource, failed, signals.Stopping);
                await resource.WaitHealthyAsync(lifetime.Token).ConfigureAwait(false);
                output.Info($"{resource.Name} is healthy after {Stopwatch.GetElapsedTime(started).TotalSeconds:0.0} s.");
            }

            PrintSummary(Stopwatch.GetElapsedTime(started));
            await Task.Delay(Timeout.Infinite, lifetime.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (lifetime.IsCancellationRequested)
        {
            // A signal or a resource that exited: stop below.
        }
        catch (Exception exception) when (exception is InvalidOperationException or TimeoutException or IOException or UnauthorizedAccessException or System.ComponentModel.Win32Exception)
        {
            output.Error($"Starting failed: {exception.Message}");
            exitCode = 1;
        }

        _stopping = true;
        if (failed.IsCancellationRequested)
        {
            exitCode = 1;
        }

        await StopAsync(launched, signals.Forced).ConfigureAwait(false);
        output.Info(exitCode == 0 ? "Stopped everything." : "Stopped everything after a failure (exit code 1).");
        return exitCode;
    }

    /// <summary>Says loudly when a resource exits before it was asked to, and ends the run.</summary>
    private async Task WatchAsync(Resource resource, CancellationTokenSource failed, CancellationToken stopping)
    {
        var code = await resource.Exited.ConfigureAwait(false);
        if (!_stopping && !stopping.IsCancellationRequested)
        {
            output.Error($"{resource.Name} exited unexpectedly with code {code}. Nothing is restarted: stopping everything.");
            await failed.CancelAsync().ConfigureAwait(false);
        }
    }

    /// <summary>Stage by stage (silos, apps, databases); within a stage, one at a time in the reverse order of starting.</summary>
    private async Task StopAsync(List<Resource> launched, CancellationToken force)
    {
        foreach (var resource in launched.AsEnumerable().Reverse().OrderBy(resource => resource.StopStage))
        {
            output.Info($"Stopping {resource.Name}...");
            try
            {
                await resource.StopAsync(force).ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is InvalidOperationException or IOException or UnauthorizedAccessException)
            {
                output.Error($"Stopping {resource.Name} failed: {exception.Message}");
            }
        }
    }

    private void PrintSummary(TimeSpan elapsed)
    {
        var width = resources.Max(resource => resource.Name.Length);
        foreach (var resource in resources)
        {
            output.Info($"  {resource.Name.PadRight(width)}  {resource.Describe()}");
        }

        output.Info($"All {resources.Count} resources are healthy after {elapsed.TotalSeconds:0.0} s. Press Ctrl+C to stop them.");
    }
}
