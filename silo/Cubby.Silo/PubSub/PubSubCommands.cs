using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Silo.Protocol;
using Cubby.Text;

namespace Cubby.Silo.PubSub;

/// <summary>
/// SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH and PUBSUB, across the cluster: a connection subscribes on
/// its own silo, and a message published on any silo reaches the subscribers of every Cubby silo.
/// </summary>
internal static class PubSubCommands
{
    private static readonly string[] Help =
    [
        "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*'), on every silo.",
        "NUMPAT",
        "    Return number of subscriptions to patterns, on every silo.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels), on every silo.",
        "HELP",
        "    Prints this help.",
    ];

    public static void Subscribe(ClientSession session, RespRequest request)
    {
        var subscriber = session.Subscribe();
        for (var i = 1; i < request.Count; i++)
        {
            var channel = request[i].ToArray();
            WriteConfirmation(session.Writer, "subscribe"u8, channel, session.Silo.PubSub.Subscribe(subscriber, channel));
        }
    }

    public static void SubscribePattern(ClientSession session, RespRequest request)
    {
        var subscriber = session.Subscribe();
        for (var i = 1; i < request.Count; i++)
        {
            var pattern = request[i].ToArray();
            WriteConfirmation(session.Writer, "psubscribe"u8, pattern, session.Silo.PubSub.SubscribePattern(subscriber, pattern));
        }
    }

    public static void Unsubscribe(ClientSession session, RespRequest request) =>
        Leave(session, request, "unsubscribe"u8, static subscriber => subscriber.Channels, static (hub, subscriber, channel) => hub.Unsubscribe(subscriber, channel));

    public static void UnsubscribePattern(ClientSession session, RespRequest request) =>
        Leave(session, request, "punsubscribe"u8, static subscriber => subscriber.Patterns, static (hub, subscriber, pattern) => hub.UnsubscribePattern(subscriber, pattern));

    /// <summary>
    /// PUBLISH channel message: delivered here at once, and to the other silos before the reply, which counts the
    /// receivers on every silo. A connection's next command runs only after that, so its messages arrive in order.
    /// </summary>
    public static void Publish(ClientSession session, RespRequest request)
    {
        var silo = session.Silo;
        var (channel, payload) = (request[1].ToArray(), request[2].ToArray());
        var here = silo.PubSub.Publish(channel, payload);
        if (OthersOf(session) is not { } others)
        {
            session.Writer.WriteInteger(here);
            return;
        }

        session.Defer(PublishElsewhereAsync(session, others, channel, payload, here));
    }

    /// <summary>PUBSUB CHANNELS [pattern] | NUMSUB [channel ...] | NUMPAT | HELP, over every silo.</summary>
    public static void PubSub(ClientSession session, RespRequest request)
    {
        var subcommand = request[1];
        var writer = session.Writer;
        if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "HELP"))
        {
            writer.WriteSimpleStringArray(Help);
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "CHANNELS"))
        {
            if (request.Count > 3)
            {
                writer.WriteError("ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP.");
                return;
            }

            var pattern = request.Count == 3 ? request[2].ToArray() : null;
            Gather(session, hub => hub.Channels(pattern), peer => peer.Channels(pattern), [], WriteDistinct);
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "NUMSUB"))
        {
            byte[][] channels = [.. Enumerable.Range(2, request.Count - 2).Select(i => request[i].ToArray())];
            Gather(session, hub => hub.SubscriberCounts(channels), peer => peer.SubscriberCounts(channels), new long[channels.Length], (writer, counts) =>
            {
                writer.WriteArrayHeader(channels.Length * 2);
                for (var i = 0; i < channels.Length; i++)
                {
                    writer.WriteBulkString(channels[i]);
                    writer.WriteInteger(counts.Sum(silo => silo[i]));
                }
            });
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "NUMPAT"))
        {
            if (Arguments.CheckArity(session.Context, request, 2, "pubsub|numpat"))
            {
                Gather(session, static hub => hub.Patterns(), static peer => peer.Patterns(), [], static (writer, patterns) =>
                    writer.WriteInteger(patterns.SelectMany(static silo => silo).Distinct(Text.ByteStringComparer.Instance).Count()));
            }
        }
        else
        {
            writer.WriteError(RedisErrors.UnknownSubcommand(subcommand, "PUBSUB"));
        }
    }

    private static void Leave(ClientSession session, RespRequest request, ReadOnlySpan<byte> kind, Func<Subscriber, HashSet<byte[]>> names, Func<PubSubHub, Subscriber, byte[], int> remove)
    {
        var hub = session.Silo.PubSub;
        var subscriber = session.Subscriber;
        byte[][] leaving = request.Count > 1
            ? [.. Enumerable.Range(1, request.Count - 1).Select(i => request[i].ToArray())]
            : subscriber is null ? [] : [.. names(subscriber)];
        if (leaving.Length == 0)
        {
            // Nothing to leave: Redis still confirms once, with a null name.
            session.Writer.WritePushHeader(3);
            session.Writer.WriteBulkString(kind);
            session.Writer.WriteNull();
            session.Writer.WriteInteger(subscriber?.Count ?? 0);
            return;
        }

        foreach (var name in leaving)
        {
            WriteConfirmation(session.Writer, kind, name, subscriber is null ? 0 : remove(hub, subscriber, name));
        }
    }

    /// <summary>The other silos to reach, still being found out; null when there are none, so the reply can go at once.</summary>
    private static ValueTask<SiloAddress[]>? OthersOf(ClientSession session)
    {
        if (session.Silo.PubSubPeers is not { } peers)
        {
            return null;
        }

        var others = peers.OthersAsync();
        return others.IsCompletedSuccessfully && others.Result.Length == 0 ? null : others;
    }

    private static async ValueTask PublishElsewhereAsync(ClientSession session, ValueTask<SiloAddress[]> others, byte[] channel, byte[] payload, int here)
    {
        var silos = await others.ConfigureAwait(false);
        var there = await session.Silo.PubSubPeers!.AskAsync(silos, peer => peer.Publish(channel, payload), 0).ConfigureAwait(false);
        await session.ReplyTurnAsync().ConfigureAwait(false);
        session.Writer.WriteInteger(here + there.Sum());
    }

    /// <summary>Asks this silo's hub and every other silo's, then writes the answers together.</summary>
    private static void Gather<T>(ClientSession session, Func<PubSubHub, T> local, Func<IPubSubService, Task<T>> remote, T none, Action<RespWriter, T[]> write)
    {
        var here = local(session.Silo.PubSub);
        if (OthersOf(session) is not { } others)
        {
            write(session.Writer, [here]);
            return;
        }

        session.Defer(GatherElsewhereAsync(session, others, here, remote, none, write));
    }

    private static async ValueTask GatherElsewhereAsync<T>(ClientSession session, ValueTask<SiloAddress[]> others, T here, Func<IPubSubService, Task<T>> remote, T none, Action<RespWriter, T[]> write)
    {
        var there = await session.Silo.PubSubPeers!.AskAsync(await others.ConfigureAwait(false), remote, none).ConfigureAwait(false);
        await session.ReplyTurnAsync().ConfigureAwait(false);
        write(session.Writer, [here, .. there]);
    }

    private static void WriteDistinct(RespWriter writer, byte[][][] channels)
    {
        var distinct = channels.SelectMany(static silo => silo).Distinct(Text.ByteStringComparer.Instance).ToArray();
        writer.WriteArrayHeader(distinct.Length);
        foreach (var channel in distinct)
        {
            writer.WriteBulkString(channel);
        }
    }

    private static void WriteConfirmation(RespWriter writer, ReadOnlySpan<byte> kind, byte[] name, int count)
    {
        writer.WritePushHeader(3);
        writer.WriteBulkString(kind);
        writer.WriteBulkString(name);
        writer.WriteInteger(count);
    }
}
