using Cubby.Grains.Tracking;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Tracking;

/// <summary>
/// This silo's connections in <c>CLIENT TRACKING BCAST</c> mode and the prefixes each listens to (none: every key).
/// Every silo holding shards is told the union of those prefixes (<see cref="DoorTracking.BroadcastAsync"/>), and sends this
/// silo the changes of matching keys; each change is then pushed to the connections whose prefixes it matches.
/// </summary>
internal sealed class BroadcastClients(DoorTracking? tracking)
{
    private readonly Lock _gate = new();
    private readonly Dictionary<ClientSession, byte[][]> _sessions = [];
    private Task _publishing = Task.CompletedTask;
    private byte[][]? _published;

    /// <summary>Whether no connection listens.</summary>
    public bool IsEmpty
    {
        get
        {
            lock (_gate)
            {
                return _sessions.Count == 0;
            }
        }
    }

    /// <summary>The connections listening, for an invalidation of everything.</summary>
    public ClientSession[] Sessions
    {
        get
        {
            lock (_gate)
            {
                return [.. _sessions.Keys];
            }
        }
    }

    /// <summary>
    /// Sets the prefixes <paramref name="session"/> listens to (null: it stops listening), and once every silo knows the
    /// new union, completes: changes acknowledged after that reach the connection.
    /// </summary>
    public Task SetAsync(ClientSession session, byte[][]? prefixes)
    {
        lock (_gate)
        {
            if (prefixes is null)
            {
                _sessions.Remove(session);
            }
            else
            {
                _sessions[session] = prefixes;
            }

            // One publication at a time, each of the union as it is when it starts, so the last one sent is the latest.
            return _publishing = PublishAfterAsync(_publishing);
        }
    }

    private async Task PublishAfterAsync(Task previous)
    {
        await previous.ConfigureAwait(false);
        var union = Union();
        if (!SameAs(union, _published) && tracking is not null)
        {
            await tracking.BroadcastAsync(union).ConfigureAwait(false);
            _published = union;
        }
    }

    /// <summary>Adds to <paramref name="owed"/> each listening connection with a prefix of <paramref name="key"/>.</summary>
    public void Match(byte[] key, Dictionary<ClientSession, List<byte[]>?> owed)
    {
        lock (_gate)
        {
            foreach (var (session, prefixes) in _sessions)
            {
                if (prefixes.Length == 0 || prefixes.Any(prefix => key.AsSpan().StartsWith(prefix)))
                {
                    if (!owed.TryGetValue(session, out var keys))
                    {
                        owed[session] = keys = [];
                    }

                    keys?.Add(key);
                }
            }
        }
    }

    /// <summary>The prefixes of every listening connection (one empty prefix when one listens to every key), or null.</summary>
    private byte[][]? Union()
    {
        lock (_gate)
        {
            if (_sessions.Count == 0)
            {
                return null;
            }

            return _sessions.Values.Any(static prefixes => prefixes.Length == 0)
                ? [[]]
                : [.. _sessions.Values.SelectMany(static prefixes => prefixes).Distinct(Text.ByteStringComparer.Instance)];
        }
    }

    private static bool SameAs(byte[][]? union, byte[][]? published) =>
        union is null ? published is null : published is not null && union.Length == published.Length && union.All(prefix => published.Contains(prefix, Text.ByteStringComparer.Instance));
}
