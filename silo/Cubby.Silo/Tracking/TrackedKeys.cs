using Cubby.Grains.Tracking;
using Cubby.Sharding;
using Cubby.Silo.Protocol;
using Cubby.Text;

namespace Cubby.Silo.Tracking;

/// <summary>
/// The keys this silo's tracking connections read, and who read each: when a shard (on any silo) says keys changed,
/// each connection that read them is sent one invalidation, and forgets them until it reads them again. A key a
/// connection is reading at that moment stays remembered: the shard remembers the read too, so the next change is
/// sent as well, and the connection writes the invalidation after the read's reply. Connections in BCAST mode
/// (<see cref="BroadcastClients"/>) are sent every changed key with one of their prefixes. Thread-safe.
/// </summary>
internal sealed class TrackedKeys(Func<byte[], int> slotOf, ClientRegistry clients, BroadcastClients broadcasts)
{
    private readonly Lock _gate = new();
    private readonly Dictionary<byte[], List<ClientSession>> _keys = new(ByteStringComparer.Instance);
    private readonly HashSet<ClientSession> _sessions = [];

    /// <summary>Keys remembered for at least one connection.</summary>
    public int Count
    {
        get
        {
            lock (_gate)
            {
                return _keys.Count;
            }
        }
    }

    /// <summary>Remembers the keys of a tracked read <paramref name="session"/> is about to run, before it runs.</summary>
    public void Reading(ClientSession session, byte[][] keys)
    {
        var tracking = session.Tracking!;
        lock (_gate)
        {
            _sessions.Add(session);
            tracking.InFlight = keys;
            foreach (var key in keys)
            {
                if (tracking.Keys.Add(key))
                {
                    if (!_keys.TryGetValue(key, out var readers))
                    {
                        _keys.Add(key, readers = []);
                    }

                    readers.Add(session);
                }
            }
        }
    }

    /// <summary>The tracked read of <paramref name="session"/> has answered.</summary>
    public void Read(ClientSession session)
    {
        lock (_gate)
        {
            session.Tracking!.InFlight = null;
        }
    }

    /// <summary>Forgets <paramref name="keys"/> for <paramref name="session"/> (NOLOOP: it is about to change them itself).</summary>
    public void Forget(ClientSession session, byte[][] keys)
    {
        lock (_gate)
        {
            foreach (var key in keys)
            {
                if (session.Tracking!.Keys.Remove(key))
                {
                    Remove(key, session);
                }
            }
        }
    }

    /// <summary>Forgets everything of a connection that closed or turned tracking off.</summary>
    public void Forget(ClientSession session)
    {
        lock (_gate)
        {
            var tracking = session.Tracking!;
            foreach (var key in tracking.Keys)
            {
                Remove(key, session);
            }

            tracking.Keys.Clear();
            tracking.InFlight = null;
            _sessions.Remove(session);
        }
    }

    /// <summary>Sends each connection the keys of <paramref name="batch"/> it read, and forgets them.</summary>
    public void Invalidated(KeyInvalidation[] batch)
    {
        var owed = new Dictionary<ClientSession, List<byte[]>?>();
        lock (_gate)
        {
            foreach (var invalidation in batch)
            {
                if (invalidation.Slot < 0)
                {
                    foreach (var session in _sessions.Concat(broadcasts.Sessions))
                    {
                        owed[session] = null;
                    }

                    foreach (var key in _keys.Keys.ToArray())
                    {
                        Take(key, owed, everything: true);
                    }
                }
                else if (invalidation.Keys is { } keys)
                {
                    foreach (var key in keys)
                    {
                        Take(key, owed, everything: false);
                        if (!broadcasts.IsEmpty)
                        {
                            broadcasts.Match(key, owed);
                        }
                    }
                }
                else
                {
                    foreach (var key in _keys.Keys.Where(key => slotOf(key) == invalidation.Slot).ToArray())
                    {
                        Take(key, owed, everything: false);
                    }
                }
            }
        }

        foreach (var (session, keys) in owed)
        {
            Deliver(session, keys?.Distinct(ByteStringComparer.Instance).ToArray());
        }
    }

    /// <summary>Sends a connection's invalidation where it goes: to itself in RESP3, or to the connection it redirects to.</summary>
    private void Deliver(ClientSession session, byte[][]? keys)
    {
        var tracking = session.Tracking;
        if (tracking is null)
        {
            return;
        }

        if (tracking.RedirectId == 0)
        {
            // A RESP2 connection without a redirect has no way to be told, as in Redis.
            if (session.Writer.Version == Resp.RespVersion.Resp3)
            {
                session.Pushes.Enqueue(new Invalidation(keys, Redirected: false));
            }

            return;
        }

        if (clients.Find(tracking.RedirectId) is { } target)
        {
            target.Pushes.Enqueue(new Invalidation(keys, Redirected: target.Writer.Version == Resp.RespVersion.Resp2));
        }
        else
        {
            // As Redis: the connection is told in RESP3, each time; TRACKINGINFO shows it in either protocol.
            tracking.BrokenRedirect = true;
            if (session.Writer.Version == Resp.RespVersion.Resp3)
            {
                session.Pushes.Enqueue(new RedirectBroken(tracking.RedirectId));
            }
        }
    }

    private void Take(byte[] key, Dictionary<ClientSession, List<byte[]>?> owed, bool everything)
    {
        if (!_keys.TryGetValue(key, out var readers))
        {
            return;
        }

        foreach (var session in readers.ToArray())
        {
            var tracking = session.Tracking!;
            if (!everything)
            {
                if (!owed.TryGetValue(session, out var keys))
                {
                    owed[session] = keys = [];
                }

                keys?.Add(key);
            }

            if (tracking.InFlight is not { } reading || !reading.Contains(key, ByteStringComparer.Instance))
            {
                tracking.Keys.Remove(key);
                Remove(key, session);
            }
        }
    }

    private void Remove(byte[] key, ClientSession session)
    {
        if (_keys.TryGetValue(key, out var readers))
        {
            readers.Remove(session);
            if (readers.Count == 0)
            {
                _keys.Remove(key);
            }
        }
    }
}
