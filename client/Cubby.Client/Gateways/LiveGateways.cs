using System.Runtime.CompilerServices;
using Cubby.Diagnostics;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Orleans.Runtime;

namespace Cubby.Client.Gateways;

/// <summary>
/// Whether the Orleans client counts a gateway live: the one test that says a message addressed to that gateway goes
/// straight to it. A system-target message for a gateway the client does not count live (one that joined since the
/// client last read the gateway list, or that it marked dead, perhaps before the silo restarted on the same port) goes to
/// another gateway instead, and that silo forwards it as silo-to-silo traffic to the gateway's client port. The
/// handshake there names the real silo, so the forwarding silo files the doomed connection under that silo and
/// messages between the two silos (shard migrations among them) are lost until it closes. Batches therefore go only
/// to gateways this counts live. Orleans keeps its gateway manager internal; this reads its live list through an
/// <see cref="UnsafeAccessorAttribute"/>, and where that is missing (an Orleans that renamed it) there are no batches.
/// </summary>
internal sealed partial class LiveGateways
{
    private const string ManagerTypeName = "Orleans.Messaging.GatewayManager, Orleans.Core";

    private readonly object _manager;

    private LiveGateways(object manager) => _manager = manager;

    /// <summary>The client's gateway list, or null (logged) when this Orleans has no gateway manager that can be read.</summary>
    public static LiveGateways? Find(IServiceProvider services)
    {
        if (Type.GetType(ManagerTypeName) is { } type && services.GetService(type) is { } manager)
        {
            try
            {
                _ = IsGatewayAvailable(manager, SiloAddress.Zero);
                return new LiveGateways(manager);
            }
            catch (MissingMethodException)
            {
                // An Orleans that renamed it: said below.
            }
        }

        LogUnavailable((services.GetService<ILoggerFactory>() ?? NullLoggerFactory.Instance).CreateLogger<LiveGateways>(), ManagerTypeName);
        return null;
    }

    /// <summary>Whether the client sends messages addressed to <paramref name="gateway"/> (a gateway address, generation 0) straight to it.</summary>
    public bool Contains(SiloAddress gateway) => IsGatewayAvailable(_manager, gateway);

    /// <summary>
    /// Has the Orleans client read its gateway list again now rather than at its next refresh, so gateways just learned
    /// take calls at once; an Orleans without the method reads it at its next refresh.
    /// </summary>
    public void Reread()
    {
        try
        {
            ExpediteUpdateLiveGatewaysSnapshot(_manager);
        }
        catch (MissingMethodException)
        {
            // The periodic refresh reads it.
        }
    }

    [LoggerMessage(
        EventId = LogEvents.CoalescingUnavailable,
        Level = LogLevel.Warning,
        Message = "Cubby:Client:CoalesceCalls is on, but this Orleans has no {Manager}.IsGatewayAvailable to tell which gateways are live; every call goes to its shard grain on its own")]
    private static partial void LogUnavailable(ILogger logger, string manager);

    [UnsafeAccessor(UnsafeAccessorKind.Method, Name = "ExpediteUpdateLiveGatewaysSnapshot")]
    private static extern void ExpediteUpdateLiveGatewaysSnapshot([UnsafeAccessorType(ManagerTypeName)] object manager);

    [UnsafeAccessor(UnsafeAccessorKind.Method, Name = "IsGatewayAvailable")]
    private static extern bool IsGatewayAvailable([UnsafeAccessorType(ManagerTypeName)] object manager, SiloAddress siloAddress);
}
