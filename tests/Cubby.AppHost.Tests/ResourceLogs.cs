using Aspire.Hosting;
using Aspire.Hosting.ApplicationModel;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.AppHost.Tests;

/// <summary>What each resource wrote, as the Aspire dashboard's console page shows it, for assertions and failure messages.</summary>
internal sealed class ResourceLogs(DistributedApplication app)
{
    /// <summary>Every line <paramref name="resource"/> wrote so far.</summary>
    public async Task<string> OfAsync(string resource)
    {
        var model = app.Services.GetRequiredService<DistributedApplicationModel>();
        var service = app.Services.GetRequiredService<ResourceLoggerService>();
        var lines = new List<string>();
        await foreach (var batch in service.GetAllAsync(model.Resources.Single(candidate => candidate.Name == resource)))
        {
            lines.AddRange(batch.Select(static line => line.Content));
        }

        return string.Join('\n', lines);
    }

    /// <summary>The last lines of every resource, for a failing assertion's message.</summary>
    public async Task<string> DescribeAsync(int lastLines = 25)
    {
        var model = app.Services.GetRequiredService<DistributedApplicationModel>();
        var text = new System.Text.StringBuilder();
        foreach (var resource in model.Resources.Where(static resource => resource is ExecutableResource))
        {
            var lines = (await OfAsync(resource.Name)).Split('\n');
            text.Append($"\n--- {resource.Name} ---\n").AppendJoin('\n', lines.TakeLast(lastLines));
        }

        return text.ToString();
    }
}
