namespace Cubby.Silo.PubSub;

/// <summary>
/// A message published to a channel, shared by every subscriber it is queued for; <paramref name="Pattern"/> is the
/// subscribed pattern it matched, or null when it was subscribed to by name.
/// </summary>
internal readonly record struct PublishedMessage(byte[] Channel, byte[] Payload, byte[]? Pattern)
{
    /// <summary>What it holds a subscriber's queue to, its push header and kind included.</summary>
    public long Bytes => Channel.Length + Payload.Length + (Pattern?.Length ?? 0) + 64;
}
