using Cubby.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

public sealed class ClientSmokeTests
{
    [Fact]
    public async Task Put_then_get_round_trips_through_a_silo()
    {
        await using var silo = await TestSilo.StartAsync();
        var services = new ServiceCollection();
        services.AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{silo.RespEndPoint.Port}")).AddCubbyDistributedCache();
        await using var provider = services.BuildServiceProvider();
        var client = provider.GetRequiredService<ICubbyClient>();

        Assert.Equal(WriteOutcome.Created, await client.PutAsync("k", "v"u8.ToArray()));
        Assert.Equal(WriteOutcome.Updated, await client.PutAsync("k", "w"u8.ToArray()));
        Assert.Equal("w"u8.ToArray(), await client.GetAsync("k"));
        Assert.Null(await client.GetAsync("missing"));

        var cache = provider.GetRequiredService<IDistributedCache>();
        cache.Set("d", [1, 2, 3], new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromMinutes(1) });
        Assert.Equal([1, 2, 3], cache.Get("d"));
        Assert.Equal([1, 2, 3], await cache.GetAsync("d"));
    }
}
