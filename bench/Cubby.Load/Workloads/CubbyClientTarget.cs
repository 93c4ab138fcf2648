using Cubby.Client;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Load.Workloads;

/// <summary>
/// Cubby's own client as an application registers it (<c>AddCubbyClient</c>, through the silo's Orleans gateway):
/// <see cref="ICubbyClient.PutAsync"/> with a relative expiry and <see cref="ICubbyClient.GetAsync"/>, one shard-grain
/// call each.
/// </summary>
internal sealed class CubbyClientTarget : ICacheTarget
{
    private readonly ServiceProvider _services;
    private readonly ICubbyClient _client;
    private readonly WorkloadData _data;
    private readonly CacheEntryOptions _options;

    public CubbyClientTarget(int gatewayPort, WorkloadData data)
    {
        _services = new ServiceCollection().AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{gatewayPort}")).Services.BuildServiceProvider();
        _client = _services.GetRequiredService<ICubbyClient>();
        _data = data;
        _options = CacheEntryOptions.ExpiresIn(TimeSpan.FromMilliseconds(data.TimeToLiveMs));
    }

    public ICacheCaller CreateCaller() => new Caller(this);

    public void Dispose() => _services.Dispose();

    private sealed class Caller(CubbyClientTarget target) : ICacheCaller
    {
        public async ValueTask SetAsync(int key) =>
            await target._client.PutAsync(target._data.Keys[key], target._data.Value, target._options).ConfigureAwait(false);

        public async ValueTask<bool> GetAsync(int key) =>
            await target._client.GetAsync(target._data.Keys[key]).ConfigureAwait(false) is not null;
    }
}
