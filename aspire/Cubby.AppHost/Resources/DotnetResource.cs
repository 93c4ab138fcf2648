using Cubby.AppHost.Processes;

namespace Cubby.AppHost.Resources;

/// <summary>A built .NET program run as <c>dotnet app.dll</c> from its output folder (where its appsettings.json is), health-waited over HTTP.</summary>
internal abstract class DotnetResource(string name, string assemblyPath, DevContext context) : Resource(name)
{
    private readonly Dictionary<string, string> _environment = new(StringComparer.Ordinal)
    {
        // One line per log entry reads well under a prefix; OTLP exporters (when configured) name the service after the resource.
        ["Logging__Console__FormatterName"] = "simple",
        ["Logging__Console__FormatterOptions__SingleLine"] = "true",
        ["OTEL_SERVICE_NAME"] = name,
    };

    private ChildProcess? _process;

    protected DevContext Context { get; } = context;

    public override Task<int> Exited => _process?.Exited ?? throw new InvalidOperationException($"{Name} has not been launched.");

    public override IReadOnlyList<int> ProcessIds => _process is null ? [] : [_process.Id];

    /// <summary>Where its health is served.</summary>
    protected abstract Uri HealthUrl { get; }

    /// <summary>The command line after the assembly.</summary>
    protected abstract IEnumerable<string> Arguments { get; }

    /// <summary>Sets an environment variable of the process (configuration keys use <c>__</c> for <c>:</c>).</summary>
    public void SetEnvironment(string name, string value) => _environment[name] = value;

    public override Task LaunchAsync(CancellationToken cancellationToken)
    {
        _process = ChildProcess.Start(Name, Context.Output, "dotnet", [assemblyPath, .. Arguments], _environment, Path.GetDirectoryName(assemblyPath)!);
        return Task.CompletedTask;
    }

    public override Task WaitHealthyAsync(CancellationToken cancellationToken) =>
        HealthProbe.WaitForHttpAsync(Name, HealthUrl, Context.Options.StartTimeout, cancellationToken);

    /// <summary>SIGTERM, as a service manager stops it: ASP.NET Core runs its graceful shutdown.</summary>
    public override async Task StopAsync(CancellationToken force)
    {
        if (_process is null)
        {
            return;
        }

        var code = await _process.StopAsync(UnixProcess.SigTerm, Context.Options.StopTimeout, force).ConfigureAwait(false);
        if (code is null)
        {
            Context.Output.Error($"{Name} (pid {_process.Id}) did not exit within {Context.Options.StopTimeout.TotalSeconds:0} s of SIGTERM; killed it.");
        }
        else
        {
            Context.Output.Info($"{Name} exited with code {code}.");
        }

        _process.Dispose();
    }
}
