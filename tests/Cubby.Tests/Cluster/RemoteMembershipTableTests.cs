using Cubby.Silo.Cluster.Membership;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Cluster;

/// <summary>
/// The Development provider end to end: a table forwarded over a real, authenticated silo link to a real primary silo
/// passes every table contract test; the internal commands refuse connections that are not cluster peers.
/// </summary>
public sealed class RemoteMembershipTableTests(DevelopmentPrimary primary) : MembershipTableContractTests, IClassFixture<DevelopmentPrimary>
{
    private protected override IMembershipTable CreateTableFor(string clusterId) =>
        new RemoteMembershipTable(clusterId, primary.Silo.RespEndPoint.Address.ToString(), primary.Silo.RespEndPoint.Port, primary.Links);

    [Theory]
    [InlineData("CUBBY.MEMBERSHIP", "READ", "{\"clusterId\":\"x\"}")]
    [InlineData("CUBBY.MEMBERSHIP.CHANGED")]
    [InlineData("CUBBY.PROBE", "some-silo")]
    public async Task Internal_commands_refuse_connections_that_are_not_cluster_peers(params string[] command)
    {
        await using var client = await primary.Silo.ConnectAsync();

        var reply = await client.CallAsync(command);

        Assert.True(reply.IsError);
        Assert.StartsWith("NOPERM", reply.AsString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_peer_authenticated_as_a_client_is_refused_too()
    {
        await using var client = await primary.Silo.ConnectAsync();
        Assert.False((await client.CallAsync("AUTH", "cubby-silo", "wrong-secret")).AsString() == "OK");

        var reply = await client.CallAsync("CUBBY.MEMBERSHIP.CHANGED");

        Assert.StartsWith("NOPERM", reply.AsString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Probes_over_the_link_succeed_only_for_the_silo_s_own_id_once_it_joined()
    {
        var membership = primary.Silo.Services.GetRequiredService<IClusterMembership>();
        var prober = new LinkProber(primary.Links);
        var endpoint = primary.Silo.RespEndPoint;
        if (membership.Self is null)
        {
            var stranger = new MembershipEntry("nobody@1", endpoint.Address.ToString(), endpoint.Port, 1, SiloStatus.Active, 1024, DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch, []);
            Assert.False(await prober.ProbeAsync(stranger, CancellationToken.None));
            await membership.JoinAsync(endpoint.Address.ToString(), endpoint.Port, CancellationToken.None);
        }

        var self = membership.Self!;
        Assert.True(await prober.ProbeAsync(self, CancellationToken.None));
        Assert.False(await prober.ProbeAsync(self with { SiloId = $"{self.Host}:{self.Port}@{self.Generation - 1}" }, CancellationToken.None));
    }
}
