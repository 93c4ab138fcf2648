using Orleans.Services;

namespace Cubby.Silo.PubSub;

/// <summary>
/// The pub/sub of one Cubby silo as the other silos reach it (an Orleans grain service, one per silo): a message
/// published on any silo's RESP door is delivered to every silo's subscribers through it.
/// </summary>
[Alias("cubby.pubsub")]
internal interface IPubSubService : IGrainService
{
    /// <summary>Delivers a message to this silo's subscribers; returns how many received it.</summary>
    [Alias("publish")]
    Task<int> Publish(byte[] channel, byte[] payload);

    /// <summary>The channels with a subscriber on this silo, those matching <paramref name="pattern"/> when given.</summary>
    [Alias("channels")]
    Task<byte[][]> Channels(byte[]? pattern);

    /// <summary>How many of this silo's connections subscribe to each channel by name.</summary>
    [Alias("subscriber-counts")]
    Task<long[]> SubscriberCounts(byte[][] channels);

    /// <summary>The patterns with a subscriber on this silo.</summary>
    [Alias("patterns")]
    Task<byte[][]> Patterns();
}
