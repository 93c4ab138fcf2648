using Cubby.Silo.Cluster;
using Cubby.Silo.Hosting;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Cluster;

/// <summary>
/// Silos in this test process on Development membership: the first is the primary that keeps the table; the others
/// join it by its endpoint. Real Kestrel listeners, real silo links, real time.
/// </summary>
internal sealed class DevelopmentCluster : IAsyncDisposable
{
    public const string Secret = "test-cluster-secret";

    private readonly List<TestSilo> _silos = [];

    public IReadOnlyList<TestSilo> Silos => _silos;

    public TestSilo Primary => _silos[0];

    public static async Task<DevelopmentCluster> StartAsync(int silos)
    {
        var cluster = new DevelopmentCluster();
        try
        {
            for (var i = 0; i < silos; i++)
            {
                await cluster.AddSiloAsync();
            }

            await cluster.WaitForViewAsync(silos);
            return cluster;
        }
        catch
        {
            await cluster.DisposeAsync();
            throw;
        }
    }

    public async Task<TestSilo> AddSiloAsync()
    {
        var primary = _silos.Count == 0 ? null : $"127.0.0.1:{Primary.RespEndPoint.Port}";
        var silo = await TestSilo.StartAsync(options => Configure(options, primary));
        _silos.Add(silo);
        return silo;
    }

    /// <summary>Stops a silo gracefully (it leaves the view and hands its slots off) and forgets it.</summary>
    public async Task StopAsync(TestSilo silo)
    {
        _silos.Remove(silo);
        await silo.DisposeAsync();
    }

    /// <summary>Waits until every silo's view has <paramref name="silos"/> members and no slot is moving.</summary>
    public async Task WaitForViewAsync(int silos, TimeSpan? timeout = null)
    {
        var deadline = DateTime.UtcNow + (timeout ?? TimeSpan.FromSeconds(30));
        while (!_silos.All(silo => IsSettled(silo, silos)))
        {
            if (DateTime.UtcNow > deadline)
            {
                var states = string.Join("; ", _silos.Select(Describe));
                Assert.Fail($"The cluster did not settle on {silos} silos: {states}");
            }

            await Task.Delay(20);
        }
    }

    public static ClusterState StateOf(TestSilo silo) => silo.Runtime.Cluster;

    public async ValueTask DisposeAsync()
    {
        for (var i = _silos.Count - 1; i >= 0; i--)
        {
            await _silos[i].DisposeAsync();
        }

        _silos.Clear();
    }

    internal static void Configure(SiloOptions options, string? primary)
    {
        options.Clustering.Mode = ClusteringMode.Development;
        options.Clustering.PrimaryEndpoint = primary;
        options.Clustering.Secret = Secret;
        options.SlotCount = 64;
    }

    private static bool IsSettled(TestSilo silo, int silos)
    {
        var state = StateOf(silo);
        return state.View is { } view && view.Silos.Count == silos
            && state.Slots.Count(Cubby.Silo.Cluster.Slots.SlotState.Awaiting) == 0
            && state.Slots.Count(Cubby.Silo.Cluster.Slots.SlotState.Frozen) == 0
            && !HoldsForeignSlots(state);
    }

    private static bool HoldsForeignSlots(ClusterState state)
    {
        var view = state.View!;
        for (var slot = 0; slot < view.SlotCount; slot++)
        {
            if (state.Slots[slot] == Cubby.Silo.Cluster.Slots.SlotState.Held && view.OwnerOf(slot).Id != state.SelfId)
            {
                return true;
            }
        }

        return false;
    }

    private static string Describe(TestSilo silo)
    {
        var state = StateOf(silo);
        return $"{silo.RespEndPoint.Port}: view {state.View?.Version} with {state.View?.Silos.Count} silos, held {state.Slots.Count(Cubby.Silo.Cluster.Slots.SlotState.Held)}, awaiting {state.Slots.Count(Cubby.Silo.Cluster.Slots.SlotState.Awaiting)}";
    }
}
