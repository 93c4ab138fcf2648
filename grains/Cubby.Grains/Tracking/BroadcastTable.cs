namespace Cubby.Grains.Tracking;

/// <summary>
/// The silos whose RESP doors have connections in <c>CLIENT TRACKING BCAST</c> mode, each with the key prefixes they
/// listen to (an empty prefix: every key). Shards on this silo tell those silos of every change of a matching key,
/// whoever read it. Read by every change in its shard's turn, so it is a snapshot replaced whole, never locked.
/// </summary>
internal sealed class BroadcastTable
{
    private readonly Lock _setting = new();
    private volatile Listener[] _listeners = [];

    /// <summary>Whether no door listens: a change costs this one check.</summary>
    public bool IsEmpty => _listeners.Length == 0;

    /// <summary>Sets what <paramref name="door"/> listens to; null or empty prefixes: nothing any more. Returns whether it listened before.</summary>
    public bool Set(SiloAddress door, byte[][]? prefixes)
    {
        lock (_setting)
        {
            var others = _listeners.Where(listener => !listener.Door.Equals(door)).ToArray();
            var known = others.Length != _listeners.Length;
            _listeners = prefixes is { Length: > 0 } ? [.. others, new Listener(door, prefixes)] : others;
            return known;
        }
    }

    /// <summary>The doors listening now, with their prefixes.</summary>
    public Listener[] Listeners => _listeners;

    /// <summary>A door and the prefixes it listens to.</summary>
    public sealed record Listener(SiloAddress Door, byte[][] Prefixes)
    {
        public bool Matches(ReadOnlySpan<byte> key)
        {
            foreach (var prefix in Prefixes)
            {
                if (key.StartsWith(prefix))
                {
                    return true;
                }
            }

            return false;
        }
    }
}
