using Cubby.Silo.Cluster.Membership;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Cluster;

[Collection(PostgresCollection.Name)]
public sealed class PostgresMembershipTableTests(PostgresServer server) : MembershipTableContractTests
{
    private protected override IMembershipTable CreateTableFor(string clusterId) => new PostgresMembershipTable(clusterId, server.ConnectionString);
}
