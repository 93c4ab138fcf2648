using System.Text;
using Cubby.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

/// <summary>
/// Tags on <see cref="ICubbyClient"/> writes (<see cref="CacheEntryOptions.Tags"/>) and <see cref="ICubbyClient.RemoveByTagAsync(string, CancellationToken)"/>
/// on a two-silo cluster, with app instances that keep what they read in their near caches: a removal is seen by every
/// instance, for entries on either silo, at once; entries written after it, and with other tags, stay.
/// </summary>
public sealed class ClientTagTests(CubbyHybridCacheTests.TwoSilos silos) : IClassFixture<CubbyHybridCacheTests.TwoSilos>
{
    private static readonly CacheEntryOptions Red = new() { Tags = ["red"] };

    private TestCluster Cluster => silos.Cluster;

    [Fact]
    public async Task Removing_a_tag_on_one_instance_makes_its_entries_misses_on_every_instance_at_once()
    {
        await using var first = App(Cluster.Silos[0]);
        await using var second = App(Cluster.Silos[1]);
        var (writer, reader) = (Client(first), Client(second));
        var red = Enumerable.Range(0, 40).Select(i => $"tagged:red:{i}").ToArray();
        var blue = Enumerable.Range(0, 40).Select(i => $"tagged:blue:{i}").ToArray();
        await writer.PutManyAsync([.. red.Select(key => KeyValuePair.Create(key, (ReadOnlyMemory<byte>)Utf8(key)))], Red);
        foreach (var key in blue)
        {
            await writer.PutAsync(key, Utf8(key), new CacheEntryOptions { Tags = ["blue", "shared"] });
        }

        // Both silos hold some of them, and both instances keep every one.
        Assert.Equal(2, (await Task.WhenAll(red.Select(async key => (await writer.GetOwnerAsync(key)).Silo))).Distinct().Count());
        foreach (var key in red.Concat(blue))
        {
            Assert.Equal(key, Text(await writer.GetAsync(key)));
            await NearCacheTests.KeptAsync(reader, key, key);
        }

        await writer.RemoveByTagAsync("red");

        // No wait: answered once every instance's copy of the tag's epoch moved on.
        foreach (var key in red)
        {
            Assert.Null(await reader.GetAsync(key));
            Assert.Null(await writer.GetAsync(key));
        }

        foreach (var key in blue)
        {
            Assert.Equal(key, Text(await reader.GetAsync(key)));
        }

        // Written again after the removal: read as any entry.
        await reader.PutAsync(red[0], Utf8("again"), Red);
        Assert.Equal("again", Text(await writer.GetAsync(red[0])));

        await reader.RemoveByTagAsync(["missing", "shared"]);
        Assert.All(await writer.GetManyAsync(blue), Assert.Null);
        Assert.Equal("again", Text(await writer.GetAsync(red[0])));
        Assert.Equal(2, ((CubbyClient)reader).Fills.TagRemovals);
    }

    [Fact]
    public async Task Every_read_returns_the_value_without_its_tags_and_nothing_once_removed()
    {
        await using var app = App(Cluster.Silos[0]);
        await using var plain = App(Cluster.Silos[1], nearCache: false);
        var client = Client(app);
        var value = Encoding.UTF8.GetBytes(new string('v', 2000));
        await client.PutAsync("tagged:reads", value, new CacheEntryOptions { Tags = ["reads"], Flags = CacheEntryFlags.Compressed, AbsoluteExpirationRelativeToNow = TimeSpan.FromMinutes(1) });
        await client.PutObjectAsync("tagged:object", new Item("kept"), new CacheEntryOptions { Tags = ["reads"] });

        foreach (var reader in new[] { client, Client(plain) })
        {
            Assert.Equal(value, await reader.GetAsync("tagged:reads"));
            var entry = await reader.GetEntryAsync("tagged:reads");
            Assert.Equal(value, entry!.Value);
            Assert.Equal(CacheEntryFlags.Compressed | CacheEntryFlags.Tagged, entry.Flags);
            Assert.Equal(value, (await reader.GetManyAsync(["tagged:reads"]))[0]);
            Assert.Equal("kept", (await reader.GetObjectAsync<Item>("tagged:object"))!.Name);
        }

        Assert.Equal(value, await plain.GetRequiredService<IDistributedCache>().GetAsync("tagged:reads"));

        await Client(plain).RemoveByTagAsync("reads");

        foreach (var reader in new[] { client, Client(plain) })
        {
            Assert.Null(await reader.GetAsync("tagged:reads"));
            Assert.Null(await reader.GetEntryAsync("tagged:reads"));
            Assert.Null((await reader.GetManyAsync(["tagged:reads"]))[0]);
            Assert.Null(await reader.GetObjectAsync<Item>("tagged:object"));
        }

        // Stored still, until it expires or is written again.
        Assert.True(await client.ExistsAsync("tagged:reads"));
    }

    [Fact]
    public async Task GetOrCreate_with_tags_runs_its_factory_again_after_the_tag_is_removed()
    {
        await using var first = App(Cluster.Silos[0]);
        await using var second = App(Cluster.Silos[1]);
        var runs = 0;
        ValueTask<Item> Create(CancellationToken token) => ValueTask.FromResult(new Item($"run {Interlocked.Increment(ref runs)}"));
        var options = new CacheEntryOptions { Tags = ["made"] };

        Assert.Equal("run 1", (await Client(first).GetOrCreateAsync("tagged:made", Create, options)).Name);
        Assert.Equal("run 1", (await Client(second).GetOrCreateAsync("tagged:made", Create, options)).Name);
        Assert.Equal("run 1", (await Client(second).GetOrCreateAsync("tagged:made", Create, options)).Name);

        await Client(first).RemoveByTagAsync("made");

        Assert.Equal("run 2", (await Client(second).GetOrCreateAsync("tagged:made", Create, options)).Name);
        Assert.Equal("run 2", (await Client(first).GetOrCreateAsync("tagged:made", Create, options)).Name);
        Assert.Equal(2, runs);
    }

    [Fact]
    public async Task Tags_are_shared_with_Cubby_s_HybridCache()
    {
        var services = new ServiceCollection();
        services.AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{Cluster.Silos[0].GatewayEndPoint.Port}")).AddCubbyHybridCache();
        await using var app = services.BuildServiceProvider();
        var (client, hybrid) = (Client(app), app.GetRequiredService<HybridCache>());
        await client.PutAsync("tagged:both:client", Utf8("client"), new CacheEntryOptions { Tags = ["both"] });
        await hybrid.SetAsync("tagged:both:hybrid", "hybrid", tags: ["both"]);

        await client.RemoveByTagAsync("both");
        Assert.Null(await client.GetAsync("tagged:both:client"));
        Assert.Equal("miss", await hybrid.GetOrCreateAsync("tagged:both:hybrid", _ => ValueTask.FromResult("miss")));

        await client.PutAsync("tagged:both:client", Utf8("client"), new CacheEntryOptions { Tags = ["both"] });
        await hybrid.RemoveByTagAsync("both");
        Assert.Null(await client.GetAsync("tagged:both:client"));
    }

    [Fact]
    public async Task Bad_tags_are_refused_with_what_is_wrong()
    {
        await using var app = App(Cluster.Silos[0]);
        var client = Client(app);

        var everything = await Assert.ThrowsAsync<ArgumentException>(() => client.PutAsync("tagged:bad", Utf8("v"), new CacheEntryOptions { Tags = ["*"] }).AsTask());
        Assert.Contains("'*'", everything.Message, StringComparison.Ordinal);
        var empty = await Assert.ThrowsAsync<ArgumentException>(() => client.PutAsync("tagged:bad", Utf8("v"), new CacheEntryOptions { Tags = [""] }).AsTask());
        Assert.Contains("null or empty", empty.Message, StringComparison.Ordinal);
        var flag = await Assert.ThrowsAsync<ArgumentException>(() => client.PutAsync("tagged:bad", Utf8("v"), new CacheEntryOptions { Flags = CacheEntryFlags.Tagged }).AsTask());
        Assert.Contains("CacheEntryOptions.Tags", flag.Message, StringComparison.Ordinal);
        await Assert.ThrowsAsync<ArgumentException>(() => client.RemoveByTagAsync("*").AsTask());
        await Assert.ThrowsAsync<ArgumentNullException>(() => client.RemoveByTagAsync((string)null!).AsTask());
        Assert.False(await client.ExistsAsync("tagged:bad"));
    }

    private static ServiceProvider App(TestSilo silo, bool nearCache = true)
    {
        var services = new ServiceCollection();
        services.AddCubbyClient(o =>
        {
            o.Endpoints.Add($"127.0.0.1:{silo.GatewayEndPoint.Port}");
            o.NearCache.Enabled = nearCache;
        }).AddCubbyDistributedCache();
        return services.BuildServiceProvider();
    }

    private static ICubbyClient Client(IServiceProvider app) => app.GetRequiredService<ICubbyClient>();

    private static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);

    private static string? Text(byte[]? value) => value is null ? null : Encoding.UTF8.GetString(value);

    public sealed record Item(string Name);
}
