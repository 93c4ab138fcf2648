using Aspire.Hosting;
using Aspire.Hosting.ApplicationModel;
using Aspire.Hosting.Testing;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.AppHost.Tests;

/// <summary>What a test reads of a started AppHost: resources' states, process ids and endpoints.</summary>
internal static class RunningApp
{
    public static readonly TimeSpan StartTimeout = TimeSpan.FromMinutes(4);

    /// <summary>Starts the app, failing at <see cref="StartTimeout"/>.</summary>
    public static async Task StartWithinAsync(this DistributedApplication app)
    {
        using var deadline = new CancellationTokenSource(StartTimeout);
        await app.StartAsync(deadline.Token);
    }

    /// <summary>Waits until every named resource is healthy, failing at <see cref="StartTimeout"/>.</summary>
    public static async Task WaitHealthyAsync(this DistributedApplication app, params string[] resources)
    {
        using var deadline = new CancellationTokenSource(StartTimeout);
        foreach (var resource in resources)
        {
            try
            {
                await app.ResourceNotifications.WaitForResourceHealthyAsync(resource, deadline.Token);
            }
            catch (Exception exception) when (exception is DistributedApplicationException or OperationCanceledException)
            {
                Assert.Fail($"{resource} did not become healthy: {exception.Message}\n{app.DescribeStates()}{await new ResourceLogs(app).DescribeAsync()}");
            }
        }
    }

    /// <summary>Each resource's state and health checks, for a failing assertion's message.</summary>
    public static string DescribeStates(this DistributedApplication app)
    {
        var model = app.Services.GetRequiredService<DistributedApplicationModel>();
        return string.Join('\n', model.Resources.Select(resource => app.ResourceNotifications.TryGetCurrentState(resource.Name, out var state)
            ? $"{resource.Name}: {state.Snapshot.State?.Text} health={state.Snapshot.HealthStatus} [{string.Join(", ", state.Snapshot.HealthReports.Select(static report => $"{report.Name}={report.Status} {report.Description} {report.ExceptionText}"))}]"
            : $"{resource.Name}: no state"));
    }

    /// <summary>The process DCP started for <paramref name="resource"/> (for a project, its <c>dotnet run</c>).</summary>
    public static int ProcessIdOf(this DistributedApplication app, string resource)
    {
        Assert.True(app.ResourceNotifications.TryGetCurrentState(resource, out var state), $"No state for {resource}.");
        var pid = state!.Snapshot.Properties.SingleOrDefault(static property => property.Name == "executable.pid")?.Value;
        return Assert.IsType<int>(pid);
    }

    /// <summary>The resources' processes and every process they started.</summary>
    public static IReadOnlyList<int> ProcessesOf(this DistributedApplication app, IEnumerable<string> resources) =>
        resources.Select(app.ProcessIdOf).SelectMany(static pid => (IEnumerable<int>)[pid, .. ProcessTree.DescendantsOf(pid)]).ToArray();

    /// <summary>The port of a resource's endpoint.</summary>
    public static int PortOf(this DistributedApplication app, string resource, string endpoint) => app.GetEndpoint(resource, endpoint).Port;
}
