using Cubby.Silo.Cluster.Links;
using Cubby.Silo.Hosting;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace Cubby.Silo.Cluster.Membership;

/// <summary>Registers the membership of the mode <c>Cubby:Clustering:Mode</c> names.</summary>
internal static class MembershipServiceCollectionExtensions
{
    /// <summary>
    /// Adds <see cref="IClusterMembership"/> (not joined: the caller joins once the listeners are up), its table, the
    /// prober and the notifier over <see cref="SiloLinks"/>, and the tables a Development primary keeps.
    /// </summary>
    public static IServiceCollection AddCubbyMembership(this IServiceCollection services)
    {
        services.TryAddSingleton<SiloLinks>();
        services.AddSingleton<PrimaryMembershipTables>();
        services.AddSingleton(static provider => MembershipTableFactory.Create(
            provider.GetRequiredService<IOptions<SiloOptions>>().Value,
            provider.GetRequiredService<SiloLinks>(),
            provider.GetRequiredService<PrimaryMembershipTables>()));
        services.AddSingleton<ISiloProber, LinkProber>();
        services.AddSingleton<IMembershipNotifier, LinkMembershipNotifier>();
        services.AddSingleton<MembershipService>();
        services.AddSingleton<IClusterMembership>(static provider => provider.GetRequiredService<MembershipService>());
        return services;
    }
}
