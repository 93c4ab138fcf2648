namespace Cubby.AppHost.Resources;

/// <summary>A web app on a free loopback port, health at <c>/health</c>, connected to the resources it references.</summary>
internal sealed class ProjectResource(string name, string assemblyPath, DevContext context) : DotnetResource(name, assemblyPath, context)
{
    private const string Host = "127.0.0.1";

    public int Port { get; } = FreePort.Next();

    public Uri Url => new($"http://{Host}:{Port}");

    public override StopStage StopStage => StopStage.Apps;

    protected override Uri HealthUrl => new(Url, "/health");

    protected override IEnumerable<string> Arguments => [];

    /// <summary>Hands the app <paramref name="source"/>'s connection string as <c>ConnectionStrings__{name}</c>, and its client settings.</summary>
    public ProjectResource WithReference(IConnectionSource source)
    {
        SetEnvironment($"ConnectionStrings__{source.ConnectionName}", source.ConnectionString);
        foreach (var (name, value) in source.ClientEnvironment)
        {
            SetEnvironment(name, value);
        }

        return this;
    }

    public override Task LaunchAsync(CancellationToken cancellationToken)
    {
        SetEnvironment("ASPNETCORE_URLS", Url.ToString().TrimEnd('/'));
        SetEnvironment("ASPNETCORE_ENVIRONMENT", "Development");
        return base.LaunchAsync(cancellationToken);
    }

    public override string Describe() => $"pid={string.Join(',', ProcessIds)} url={Url}";
}
