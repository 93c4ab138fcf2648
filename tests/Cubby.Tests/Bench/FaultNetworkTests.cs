using System.Net;
using Cubby.Load.Faults;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Bench;

/// <summary>
/// The fault harness's network (network namespaces on this machine, as root) with two real silo processes in it: they
/// form a cluster across the bridge, and a cut, a heal and a pause do to their traffic what they say.
/// </summary>
[Collection(nameof(FaultNetworkTests))]
[CollectionDefinition(nameof(FaultNetworkTests), DisableParallelization = true)]
public sealed class FaultNetworkTests
{
    private static readonly TimeSpan Start = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan Answer = TimeSpan.FromSeconds(1);

    [Fact]
    public async Task Silos_in_namespaces_form_a_cluster_and_cuts_pauses_and_heals_act_on_their_traffic()
    {
        string[] spaces;
        await using (var network = await FaultNetwork.CreateAsync(nodes: 2))
        {
            spaces = [network.NamespaceOf(0), network.NamespaceOf(1)];
            using var primary = Silo(network, 0, ["--Cubby:Clustering:Mode", "Development"]);
            await primary.WaitUntilReadyAsync(Start);
            using var secondary = Silo(network, 1, ["--Cubby:Clustering:Mode", "Development", "--Cubby:Clustering:PrimaryEndpoint", $"{network.AddressOf(0)}:{NodeSilo.SiloPort}"]);
            await secondary.WaitUntilReadyAsync(Start);

            // One cluster: a key written through either silo's door is read through the other's.
            await using (var first = await RespTestClient.ConnectAsync(EndPoint(primary)))
            await using (var second = await RespTestClient.ConnectAsync(EndPoint(secondary)))
            {
                for (var i = 0; i < 20; i++)
                {
                    RespAssert.Ok(await first.CallAsync("SET", $"across:{i}", $"v{i}"));
                    RespAssert.Bulk($"v{i}", await second.CallAsync("GET", $"across:{i}"));
                }
            }

            await network.CutAsync(1, FaultNetwork.Clients);
            Assert.False(await secondary.AnswersAsync(Answer), "the silo cut off from its clients answered them");
            Assert.True(await primary.AnswersAsync(Answer), "the other silo stopped answering");

            await network.HealAsync();
            Assert.True(await secondary.AnswersAsync(Answer), "the healed silo did not answer");

            primary.Pause();
            Assert.False(await primary.AnswersAsync(Answer), "the paused silo answered");
            primary.Resume();
            Assert.True(await primary.AnswersAsync(TimeSpan.FromSeconds(5)), "the resumed silo did not answer");
        }

        var (_, listing, _) = await Cubby.Load.ExternalProcess.RunAsync("ip", ["netns", "list"], TimeSpan.FromSeconds(10));
        Assert.DoesNotContain(spaces[0], listing, StringComparison.Ordinal);
        Assert.DoesNotContain(spaces[1], listing, StringComparison.Ordinal);
    }

    private static NodeSilo Silo(FaultNetwork network, int node, string[] arguments) =>
        NodeSilo.Start(network, node, Cubby.Load.ExternalProcess.Which("dotnet") ?? "dotnet", SiloProcess.SiloAssemblyPath, arguments);

    private static IPEndPoint EndPoint(NodeSilo silo) => new(IPAddress.Parse(silo.Address), NodeSilo.RespPort);
}
