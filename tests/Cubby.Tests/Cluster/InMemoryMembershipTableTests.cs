using Cubby.Silo.Cluster.Membership;

namespace Cubby.Tests.Cluster;

public sealed class InMemoryMembershipTableTests : MembershipTableContractTests
{
    private protected override IMembershipTable CreateTableFor(string clusterId) => new InMemoryMembershipTable(clusterId);
}
