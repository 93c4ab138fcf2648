using System.Collections.Concurrent;
using Cubby.Silo.Hosting;
using Microsoft.Extensions.Options;

namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// The tables a Development primary keeps in memory for the silos that join it, one per cluster id: clusters may share
/// a primary as they may share a PostgreSQL database. Other silos keep none and refuse table operations.
/// </summary>
internal sealed class PrimaryMembershipTables(IOptions<SiloOptions> options)
{
    private readonly ConcurrentDictionary<string, InMemoryMembershipTable> _tables = new(StringComparer.Ordinal);

    /// <summary>Whether this silo is the Development primary.</summary>
    public bool IsPrimary { get; } = MembershipTableFactory.IsDevelopmentPrimary(options.Value);

    /// <summary>The table of <paramref name="clusterId"/>, created empty (not initialized) on first use.</summary>
    public InMemoryMembershipTable For(string clusterId) =>
        _tables.GetOrAdd(clusterId, static id => new InMemoryMembershipTable(id));
}
