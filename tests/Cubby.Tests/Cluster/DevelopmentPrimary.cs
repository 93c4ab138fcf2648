using Cubby.Silo.Cluster;
using Cubby.Silo.Cluster.Links;
using Cubby.Silo.Hosting;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Cluster;

/// <summary>A real silo in Development mode that keeps the membership table, and silo links to it with the cluster secret.</summary>
public sealed class DevelopmentPrimary : IAsyncLifetime, IDisposable
{
    public const string Secret = "test-cluster-secret";

    private TestSilo? _silo;
    private SiloLinks? _links;

    public TestSilo Silo => _silo ?? throw new InvalidOperationException("Not started.");

    internal SiloLinks Links => _links ?? throw new InvalidOperationException("Not started.");

    public async Task InitializeAsync()
    {
        _silo = await TestSilo.StartAsync(options =>
        {
            options.Clustering.Mode = ClusteringMode.Development;
            options.Clustering.Secret = Secret;
        });
        var options = new SiloOptions();
        options.Clustering.Secret = Secret;
        _links = new SiloLinks(Options.Create(options), NullLoggerFactory.Instance, TimeProvider.System);
    }

    public async Task DisposeAsync()
    {
        if (_silo is not null)
        {
            await _silo.DisposeAsync();
        }
    }

    public void Dispose() => _links?.Dispose();
}
