using Cubby.Client;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

/// <summary><see cref="ICubbyClient.GetOrCreateAsync"/> runs one factory per missing key across every app instance of a cluster.</summary>
public sealed class ClientSingleFlightTests(CubbyHybridCacheTests.TwoSilos silos) : IClassFixture<CubbyHybridCacheTests.TwoSilos>
{
    [Fact]
    public async Task Instances_missing_the_same_keys_at_once_run_each_factory_once_and_a_failed_run_is_handed_over()
    {
        await using var first = ClientHarness.GatewayApp(silos.Cluster.Silos[0]);
        await using var second = ClientHarness.GatewayApp(silos.Cluster.Silos[1]);
        var clients = new[] { first.GetRequiredService<ICubbyClient>(), second.GetRequiredService<ICubbyClient>() };
        var runs = new int[10];
        var release = new TaskCompletionSource();
        async ValueTask<string> Load(int id)
        {
            Interlocked.Increment(ref runs[id]);
            await release.Task;
            return $"value {id}";
        }

        var callers = (from client in clients
                       from id in Enumerable.Range(0, 10)
                       from caller in Enumerable.Range(0, 4)
                       select client.GetOrCreateAsync($"client-flight:{id}", _ => Load(id), CacheEntryOptions.ExpiresIn(TimeSpan.FromMinutes(5))).AsTask()).ToArray();
        await Poll.UntilAsync(() => runs.All(static count => Volatile.Read(ref count) >= 1), TestDeadlines.Phase, "a run of every key to start");
        release.SetResult();
        var values = await Task.WhenAll(callers);
        Assert.All(runs, count => Assert.Equal(1, count));
        Assert.Equal(80, values.Length);
        Assert.Equal("value 3", await clients[1].GetObjectAsync<string>("client-flight:3"));

        // A factory that throws: its callers see it; the other instance's waiter runs its own at once.
        var started = new TaskCompletionSource();
        var fail = new TaskCompletionSource();
        var failing = clients[0].GetOrCreateAsync<string>("client-flight:failing", async _ =>
        {
            started.SetResult();
            await fail.Task;
            throw new InvalidOperationException("source down");
        }).AsTask();
        await started.Task.WaitAsync(TestDeadlines.Call);
        var waiting = clients[1].GetOrCreateAsync("client-flight:failing", _ => ValueTask.FromResult("from the waiter")).AsTask();
        fail.SetResult();
        Assert.Equal("source down", (await Assert.ThrowsAsync<InvalidOperationException>(() => failing)).Message);
        Assert.Equal("from the waiter", await waiting.WaitAsync(TestDeadlines.Call));
    }
}
