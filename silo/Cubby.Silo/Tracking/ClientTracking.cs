using Cubby.Text;

namespace Cubby.Silo.Tracking;

/// <summary>One connection's CLIENT TRACKING settings, and the keys it is to be told about (Redis's default mode).</summary>
internal sealed class ClientTracking
{
    private bool _cachingJustSet;

    public bool Enabled { get; set; }

    /// <summary>The client id its invalidations go to instead (REDIRECT); 0 for itself.</summary>
    public long RedirectId { get; set; }

    /// <summary>Whether the connection <see cref="RedirectId"/> names has gone, so invalidations have nowhere to go.</summary>
    public bool BrokenRedirect { get; set; }

    /// <summary>BCAST: told of every change of a key with one of <see cref="Prefixes"/>, whoever read it; reads are not tracked.</summary>
    public bool Broadcast { get; set; }

    /// <summary>The prefixes a BCAST connection listens to; none: every key.</summary>
    public List<byte[]> Prefixes { get; } = [];

    /// <summary>NOLOOP: keys this connection changes itself are not sent back to it.</summary>
    public bool NoLoop { get; set; }

    /// <summary>OPTIN: only reads right after <c>CLIENT CACHING YES</c> are tracked.</summary>
    public bool OptIn { get; set; }

    /// <summary>OPTOUT: every read is tracked but those right after <c>CLIENT CACHING NO</c>.</summary>
    public bool OptOut { get; set; }

    /// <summary>What <c>CLIENT CACHING</c> asked for the next command, if it was the last one run.</summary>
    public bool? CachingNext { get; private set; }

    /// <summary>The keys in <see cref="TrackedKeys"/> for this connection; changed only under its lock.</summary>
    public HashSet<byte[]> Keys { get; } = new(ByteStringComparer.Instance);

    /// <summary>The keys of the tracked read running now, which an invalidation does not forget; changed only under <see cref="TrackedKeys"/>'s lock.</summary>
    public byte[][]? InFlight { get; set; }

    /// <summary>Whether the read about to run is tracked: always, or as OPTIN and OPTOUT with CLIENT CACHING decide.</summary>
    public bool Tracks => Enabled && !Broadcast && (OptIn ? CachingNext == true : !OptOut || CachingNext != false);

    /// <summary>CLIENT CACHING YES or NO: it applies to the next command only.</summary>
    public void SetCaching(bool yes)
    {
        CachingNext = yes;
        _cachingJustSet = true;
    }

    /// <summary>Called after every command: CLIENT CACHING's choice lasts for one more.</summary>
    public void CommandRan()
    {
        if (_cachingJustSet)
        {
            _cachingJustSet = false;
        }
        else
        {
            CachingNext = null;
        }
    }
}
