using Cubby.Silo.Protocol;
using Cubby.Text;

namespace Cubby.Silo.PubSub;

/// <summary>
/// This silo's pub/sub subscriptions: which connections listen on each channel and pattern. A message published on
/// any silo is delivered here by <see cref="Publish"/>, to the connections of this silo only (see <see cref="PubSubPeers"/>
/// for the others). Thread-safe: subscriptions change on their connections' threads, messages arrive on any.
/// </summary>
internal sealed class PubSubHub
{
    private readonly Lock _gate = new();
    private readonly Dictionary<byte[], List<Subscriber>> _channels = new(ByteStringComparer.Instance);
    private readonly Dictionary<byte[], List<Subscriber>> _patterns = new(ByteStringComparer.Instance);

    /// <summary>Channels with a subscriber here (INFO's <c>pubsub_channels</c>).</summary>
    public int ChannelCount
    {
        get
        {
            lock (_gate)
            {
                return _channels.Count;
            }
        }
    }

    /// <summary>Patterns with a subscriber here (INFO's <c>pubsub_patterns</c>).</summary>
    public int PatternCount
    {
        get
        {
            lock (_gate)
            {
                return _patterns.Count;
            }
        }
    }

    /// <summary>Subscribes to <paramref name="channel"/>; returns the subscriber's count of channels and patterns after.</summary>
    public int Subscribe(Subscriber subscriber, byte[] channel) => Add(_channels, subscriber.Channels, subscriber, channel);

    /// <summary>Subscribes to <paramref name="pattern"/>; returns the subscriber's count of channels and patterns after.</summary>
    public int SubscribePattern(Subscriber subscriber, byte[] pattern) => Add(_patterns, subscriber.Patterns, subscriber, pattern);

    /// <summary>Drops a subscription to <paramref name="channel"/>, if any; returns the subscriber's count after.</summary>
    public int Unsubscribe(Subscriber subscriber, byte[] channel) => Remove(_channels, subscriber.Channels, subscriber, channel);

    /// <summary>Drops a subscription to <paramref name="pattern"/>, if any; returns the subscriber's count after.</summary>
    public int UnsubscribePattern(Subscriber subscriber, byte[] pattern) => Remove(_patterns, subscriber.Patterns, subscriber, pattern);

    /// <summary>Drops every subscription of a connection that closed.</summary>
    public void RemoveAll(Subscriber subscriber)
    {
        lock (_gate)
        {
            foreach (var channel in subscriber.Channels.ToArray())
            {
                Remove(_channels, subscriber.Channels, subscriber, channel);
            }

            foreach (var pattern in subscriber.Patterns.ToArray())
            {
                Remove(_patterns, subscriber.Patterns, subscriber, pattern);
            }
        }
    }

    /// <summary>
    /// Queues the message for every connection here subscribed to <paramref name="channel"/>, then for every pattern
    /// it matches; returns how many it was queued for, counted as Redis counts (a connection with the channel and a
    /// matching pattern counts twice).
    /// </summary>
    public int Publish(byte[] channel, byte[] payload)
    {
        var receivers = 0;
        lock (_gate)
        {
            if (_channels.TryGetValue(channel, out var direct))
            {
                var message = new ChannelMessage(channel, payload, null);
                foreach (var subscriber in direct)
                {
                    receivers++;
                    subscriber.Pushes.Enqueue(message);
                }
            }

            foreach (var (pattern, subscribers) in _patterns)
            {
                if (!GlobPattern.IsMatch(pattern, channel))
                {
                    continue;
                }

                var message = new ChannelMessage(channel, payload, pattern);
                foreach (var subscriber in subscribers)
                {
                    receivers++;
                    subscriber.Pushes.Enqueue(message);
                }
            }
        }

        return receivers;
    }

    /// <summary>The channels with a subscriber here, those matching <paramref name="pattern"/> when given (PUBSUB CHANNELS).</summary>
    public byte[][] Channels(byte[]? pattern)
    {
        lock (_gate)
        {
            return [.. _channels.Keys.Where(channel => pattern is null || GlobPattern.IsMatch(pattern, channel))];
        }
    }

    /// <summary>How many connections here subscribe to each of <paramref name="channels"/> by name (PUBSUB NUMSUB).</summary>
    public long[] SubscriberCounts(byte[][] channels)
    {
        lock (_gate)
        {
            return [.. channels.Select(channel => _channels.TryGetValue(channel, out var subscribers) ? (long)subscribers.Count : 0)];
        }
    }

    /// <summary>The patterns with a subscriber here (PUBSUB NUMPAT counts them across the cluster).</summary>
    public byte[][] Patterns()
    {
        lock (_gate)
        {
            return [.. _patterns.Keys];
        }
    }

    private int Add(Dictionary<byte[], List<Subscriber>> table, HashSet<byte[]> own, Subscriber subscriber, byte[] name)
    {
        lock (_gate)
        {
            if (own.Add(name))
            {
                if (!table.TryGetValue(name, out var subscribers))
                {
                    table.Add(name, subscribers = []);
                }

                subscribers.Add(subscriber);
            }

            return subscriber.Count;
        }
    }

    private int Remove(Dictionary<byte[], List<Subscriber>> table, HashSet<byte[]> own, Subscriber subscriber, byte[] name)
    {
        lock (_gate)
        {
            if (own.Remove(name) && table.TryGetValue(name, out var subscribers))
            {
                subscribers.Remove(subscriber);
                if (subscribers.Count == 0)
                {
                    table.Remove(name);
                }
            }

            return subscriber.Count;
        }
    }
}
