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

    [Fact]
    public async Task A_two_minute_schedule_of_every_fault_kind_leaves_clients_nothing_Cubby_does_not_promise()
    {
        // The harness's own command on a fixed seed: three silos and PostgreSQL in namespaces, one step of each fault kind
        // while clients write, read, increment, transfer and watch through every silo and a near cache. Exit code 0:
        // its checker found nothing.
        var start = DotnetProcess.StartInfo(
            Path.Combine(AppContext.BaseDirectory, "Cubby.Load.dll"),
            ["faults", "--seed", "62", "--duration", "120", "--silos", "3", "--faults", "all", "--settle", "10", "--silo", SiloProcess.SiloAssemblyPath]);
        using var process = System.Diagnostics.Process.Start(start)!;
        process.StandardInput.Close();
        var output = process.StandardOutput.ReadToEndAsync();
        var errors = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(6));
        var said = await output + await errors;

        Assert.True(process.ExitCode == 0, $"faults exited with {process.ExitCode}:\n{said}");
        foreach (var kind in FaultSchedule.AllKinds)
        {
            Assert.Contains($", {kind.ToString().ToLowerInvariant()}: ", said, StringComparison.Ordinal);
        }

        Assert.Matches(@"[1-9]\d* reads, [1-9]\d* acknowledged writes: 0 stale reads .*, 0 lost writes", said);
        Assert.Matches(@"[1-9]\d* acknowledged increments: 0 duplicate results, counter 0 behind", said);
        Assert.Matches(@"[1-9]\d* snapshots of the accounts: 0 torn; total 0 after the faults", said);
        Assert.Matches(@"[1-9]\d* watched commits: 0 duplicate values, watched key 0 behind", said);
    }

    private static NodeSilo Silo(FaultNetwork network, int node, string[] arguments) =>
        NodeSilo.Start(network, node, Cubby.Load.ExternalProcess.Which("dotnet") ?? "dotnet", SiloProcess.SiloAssemblyPath, arguments);

    private static IPEndPoint EndPoint(NodeSilo silo) => new(IPAddress.Parse(silo.Address), NodeSilo.RespPort);
}
