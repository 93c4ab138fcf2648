using Aspire.Hosting;
using Aspire.Hosting.ApplicationModel;
using Aspire.Hosting.Orleans;

namespace Cubby.Aspire.Hosting;

/// <summary>
/// A Cubby cluster: its silos (one executable resource each, shown under this one) and the connection string that Cubby's
/// client reads: <c>Endpoints={silo gateways};ClusterId={id};ServiceId={id}</c>.
/// </summary>
/// <param name="name">The resource's name, also the name of the connection string projects get.</param>
public sealed class CubbyResource(string name) : Resource(name), IResourceWithConnectionString, IResourceWithWaitSupport
{
    private readonly List<ExecutableResource> _silos = [];

    /// <summary>The silos, in the order they were added: the first starts first (and is the primary under development clustering).</summary>
    public IReadOnlyList<ExecutableResource> Silos => _silos;

    /// <summary>Orleans' cluster id of the silos; the resource's name unless set.</summary>
    public string ClusterId { get; internal set; } = name;

    /// <summary>Orleans' service id of the silos (reminders are kept under it); the resource's name unless set.</summary>
    public string ServiceId { get; internal set; } = name;

    /// <summary>The database the silos keep Orleans' membership and reminders in, or null for development clustering.</summary>
    public IResourceWithConnectionString? ClusteringDatabase { get; internal set; }

    /// <summary>The silos' Orleans gateways (the ports they listen on), with the cluster's ids.</summary>
    public ReferenceExpression ConnectionStringExpression
    {
        get
        {
            var expression = new ReferenceExpressionBuilder();
            expression.AppendLiteral("Endpoints=");
            for (var i = 0; i < _silos.Count; i++)
            {
                var gateway = _silos[i].GetEndpoint(CubbyEndpointNames.OrleansGateway);
                expression.AppendLiteral(i == 0 ? "" : ",");
                expression.Append($"{gateway.Property(EndpointProperty.IPV4Host)}:{gateway.Property(EndpointProperty.Port)}");
            }

            expression.AppendLiteral($";ClusterId={ClusterId};ServiceId={ServiceId}");
            return expression.Build();
        }
    }

    /// <summary>How <c>Aspire.Hosting.Orleans</c> wires the silos; its ids follow <see cref="ClusterId"/> and <see cref="ServiceId"/>.</summary>
    internal OrleansService? Orleans { get; set; }

    internal void AddSilo(ExecutableResource silo) => _silos.Add(silo);
}
