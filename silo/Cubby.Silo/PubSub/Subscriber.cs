using Cubby.Silo.Protocol;
using Cubby.Text;

namespace Cubby.Silo.PubSub;

/// <summary>One connection's channel and pattern subscriptions; messages published to them go to its <see cref="Pushes"/>.</summary>
internal sealed class Subscriber(PushQueue pushes)
{
    /// <summary>Where this connection's messages wait to be written.</summary>
    public PushQueue Pushes { get; } = pushes;

    /// <summary>The channels subscribed to by name; changed only under <see cref="PubSubHub"/>'s lock.</summary>
    public HashSet<byte[]> Channels { get; } = new(ByteStringComparer.Instance);

    /// <summary>The patterns subscribed to; changed only under <see cref="PubSubHub"/>'s lock.</summary>
    public HashSet<byte[]> Patterns { get; } = new(ByteStringComparer.Instance);

    /// <summary>Channels and patterns together: the count SUBSCRIBE and its kin reply with.</summary>
    public int Count => Channels.Count + Patterns.Count;
}
