using Microsoft.Extensions.Logging;
using Orleans.Runtime.Services;

namespace Cubby.Grains.Fencing;

/// <summary>Answers <see cref="IMembershipWitness"/> on this silo from its view of the membership.</summary>
internal sealed class MembershipWitness(GrainId id, global::Orleans.Runtime.Silo silo, ILoggerFactory loggers, IClusterMembershipService membership)
    : GrainService(id, silo, loggers), IMembershipWitness
{
    public ValueTask<SiloStatus> StatusOf(SiloAddress caller)
    {
        ArgumentNullException.ThrowIfNull(caller);
        return ValueTask.FromResult(membership.CurrentSnapshot.GetSiloStatus(caller));
    }
}
