using Cubby.Sharding;

namespace Cubby.Grains;

/// <summary>A shard runs no call that reached it after its caller's deadline (<see cref="CallDeadline"/>).</summary>
internal sealed partial class ShardGrain : IIncomingGrainCallFilter
{
    public Task Invoke(IIncomingGrainCallContext context)
    {
        CallDeadline.ThrowIfPassed(context.InterfaceMethod?.Name ?? "A call");
        return context.Invoke();
    }
}
