using Cubby.Diagnostics;
using Cubby.Sharding;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Orleans.Runtime.Services;

namespace Cubby.Grains.Tracking;

/// <summary>
/// Server-assisted client-side caching on this silo's shards: which readers read which keys (<see cref="KeyReaders"/>,
/// per shard), and the links that tell those readers, in order, when the keys change. A reader is a silo whose RESP
/// door has tracking connections (its <see cref="IKeyInvalidationListener"/>) or a client's near cache (its
/// <see cref="INearCacheReader"/>); each has a number here while it is known, and a number whose reader is gone goes to
/// the next new one. The silo keeps at most <see cref="MaxKeys"/> tracked keys: past it, shards forget keys and send
/// their invalidations at once, as Redis does past <c>tracking-table-max-keys</c>.
/// </summary>
internal sealed partial class ReadTracking : GrainServiceClient<IKeyInvalidationListener>
{
    private readonly Lock _gate = new();
    private readonly Dictionary<SiloAddress, int> _silos = [];
    private readonly Dictionary<GrainId, int> _nearCaches = [];
    private readonly IServiceProvider _services;
    private readonly SiloAddress _self;
    private ReaderLink?[] _links = new ReaderLink?[8];
    private readonly KeyInvalidationFeed _feed;
    private long _keys;
    private int _largestUpdate;
    private long _incarnations = Random.Shared.NextInt64(1, long.MaxValue / 2);

    public ReadTracking(IServiceProvider services, long maxKeys)
        : base(services)
    {
        _services = services;
        _self = services.GetRequiredService<ILocalSiloDetails>().SiloAddress;
        _feed = services.GetRequiredService<KeyInvalidationFeed>();
        Membership = services.GetRequiredService<IClusterMembershipService>();
        Logger = services.GetRequiredService<ILogger<ReadTracking>>();
        Time = services.GetService<TimeProvider>() ?? TimeProvider.System;
        MaxKeys = maxKeys;
    }

    /// <summary>The most keys this silo's shards track together; 0 for no limit.</summary>
    public long MaxKeys { get; }

    /// <summary>Keys tracked by this silo's shards now.</summary>
    public long Keys => Volatile.Read(ref _keys);

    /// <summary>Whether shards must forget keys until the count is back within <see cref="MaxKeys"/>.</summary>
    public bool OverLimit => MaxKeys > 0 && Volatile.Read(ref _keys) > MaxKeys;

    internal IClusterMembershipService Membership { get; }

    internal ILogger Logger { get; }

    internal TimeProvider Time { get; }

    /// <summary>The number of the silo <paramref name="reader"/>, whose door's tracking connections read keys here.</summary>
    public int NumberOf(SiloAddress reader)
    {
        lock (_gate)
        {
            return _silos.TryGetValue(reader, out var number) ? number : Add(_silos, reader, new SiloReaderLink(this, reader));
        }
    }

    /// <summary>The number of the near cache <paramref name="reader"/>, with its link, which now counts it heard from.</summary>
    public (int Number, NearCacheLink Link) NumberOf(INearCacheReader reader)
    {
        var id = reader.GetGrainId();
        lock (_gate)
        {
            if (!_nearCaches.TryGetValue(id, out var number))
            {
                number = Add(_nearCaches, id, new NearCacheLink(this, reader));
            }

            var link = (NearCacheLink)_links[number]!;
            link.Heard();
            return (number, link);
        }
    }

    /// <summary>The link to the near cache <paramref name="reader"/>, if it has one here.</summary>
    public NearCacheLink? LinkOf(INearCacheReader reader)
    {
        lock (_gate)
        {
            return _nearCaches.TryGetValue(reader.GetGrainId(), out var number) ? _links[number] as NearCacheLink : null;
        }
    }

    /// <summary>Tells the tracking connections of <paramref name="silo"/> that every key changed (FLUSHALL).</summary>
    public Task TellEverythingAsync(SiloAddress silo) => GetGrainService(silo).Invalidated([KeyInvalidation.Everything]);

    public void Added(int keys) => Interlocked.Add(ref _keys, keys);

    public void Removed(int keys) => Interlocked.Add(ref _keys, -keys);

    /// <summary>The doors listening for changes of key prefixes (<c>CLIENT TRACKING BCAST</c>).</summary>
    public BroadcastTable Broadcasts { get; } = new();

    /// <summary>
    /// The largest value any near cache here takes with a change of a key it holds (see
    /// <see cref="NearCacheTerms.UpdatesUpTo"/>): a shard copies no value larger, nor any when it is 0.
    /// </summary>
    public int LargestUpdate => Volatile.Read(ref _largestUpdate);

    /// <summary>
    /// <paramref name="key"/> of shard <paramref name="slot"/> changed: tells its <paramref name="readers"/> and every
    /// door listening to one of its prefixes, each once, noting in <paramref name="untold"/> the near caches the change's
    /// answer waits for. Near caches that take values of its size get <paramref name="update"/>, when given, and are
    /// returned: they hold the key still, so the shard keeps tracking them. Costs two emptiness checks when nobody is to
    /// be told. The near cache of the client that made the change, <paramref name="writer"/> (or -1), is sent nothing
    /// when it would be sent <paramref name="update"/> and changes wait for it: its client is answered with the entry and
    /// puts it in place itself, at <paramref name="writerAt"/> among what its link sends (else null).
    /// </summary>
    public ReaderSet Changed(int slot, ReaderSet readers, ReadOnlySpan<byte> key, UntoldReaders untold, ShardEntry? update, int writer, out NearCachePosition? writerAt)
    {
        writerAt = null;
        foreach (var listener in Broadcasts.Listeners)
        {
            if (listener.Matches(key))
            {
                readers = readers.With(NumberOf(listener.Door));
            }
        }

        if (readers.IsEmpty)
        {
            return default;
        }

        var invalidation = new KeyInvalidation(slot, [key.ToArray()]);
        var updated = update is null ? null : invalidation with { Update = update };
        var kept = default(ReaderSet);
        var links = Volatile.Read(ref _links);
        foreach (var reader in readers)
        {
            if (reader < links.Length && Volatile.Read(ref links[reader]) is { } link)
            {
                var takes = link is NearCacheLink near && near.Takes(key, update);
                if (takes && reader == writer && ((NearCacheLink)link).OwnChangeAt() is { } at)
                {
                    writerAt = at;
                }
                else
                {
                    Enqueue(link, takes ? updated! : invalidation, untold);
                }

                kept = takes ? kept.With(reader) : kept;
            }
        }

        return kept;
    }

    /// <summary>Sets which prefixes <paramref name="door"/> listens to; <paramref name="catchingUp"/>: it is told every key changed too.</summary>
    public void Listen(SiloAddress door, byte[][]? prefixes, bool catchingUp)
    {
        Broadcasts.Set(door, prefixes);
        if (catchingUp)
        {
            Send(-1, default(ReaderSet).With(NumberOf(door)), null, untold: null);
        }
    }

    /// <summary>
    /// Tells every reader in <paramref name="readers"/> that <paramref name="key"/> of shard <paramref name="slot"/>
    /// changed, or all its keys when null; the near caches told are noted in <paramref name="untold"/>, when given.
    /// </summary>
    public void Send(int slot, ReaderSet readers, byte[]? key, UntoldReaders? untold) =>
        Send(readers, slot < 0 ? KeyInvalidation.Everything : new KeyInvalidation(slot, key is null ? null : [key]), untold);

    /// <summary>A near cache renewed on terms that take values up to <paramref name="bytes"/> with changes.</summary>
    internal void OfferedUpdates(int bytes)
    {
        var largest = Volatile.Read(ref _largestUpdate);
        while (bytes > largest && Interlocked.CompareExchange(ref _largestUpdate, bytes, largest) is var seen && seen != largest)
        {
            largest = seen;
        }
    }

    private void Send(ReaderSet readers, KeyInvalidation invalidation, UntoldReaders? untold)
    {
        var links = Volatile.Read(ref _links);
        foreach (var reader in readers)
        {
            if (reader < links.Length && Volatile.Read(ref links[reader]) is { } link)
            {
                Enqueue(link, invalidation, untold);
            }
        }
    }

    private static void Enqueue(ReaderLink link, KeyInvalidation invalidation, UntoldReaders? untold)
    {
        if (link.Enqueue(invalidation) is > 0 and var number)
        {
            untold?.Add((NearCacheLink)link, number);
        }
    }

    /// <summary>A link identity no earlier link of this silo had (a restarted silo starts from another random point).</summary>
    internal long NewIncarnation() => Interlocked.Increment(ref _incarnations);

    /// <summary>This silo's own feed, when <paramref name="silo"/> is this silo: told directly, not through a grain call.</summary>
    internal KeyInvalidationFeed? LocalFeedFor(SiloAddress silo) => silo.Equals(_self) ? _feed : null;

    internal IKeyInvalidationListener ListenerAt(SiloAddress silo) => GetGrainService(silo);

    /// <summary>Gives <paramref name="link"/> the first number that is free, or whose reader is gone and owed nothing.</summary>
    private int Add<TReader>(Dictionary<TReader, int> numbers, TReader reader, ReaderLink link)
        where TReader : notnull
    {
        var links = _links;
        var free = Array.FindIndex(links, existing => existing is null || (existing.Idle && existing.Gone));
        if (free < 0)
        {
            free = links.Length;
            Array.Resize(ref links, links.Length * 2);
            Volatile.Write(ref _links, links);
        }

        switch (links[free])
        {
            case SiloReaderLink old:
                _silos.Remove(old.Silo);
                break;
            case NearCacheLink old:
                _nearCaches.Remove(old.Reader.GetGrainId());
                break;
        }

        // Keys still marked with the old reader's number now tell the new one: one spurious invalidation, never a missed one.
        Volatile.Write(ref links[free], link);
        numbers[reader] = free;
        return free;
    }

    internal static partial class Log
    {
        [LoggerMessage(LogEvents.TrackingReaderUnreachable, LogLevel.Warning, "Invalidations for the tracking connections of silo {Silo} were not delivered")]
        public static partial void ReaderUnreachable(ILogger logger, Exception exception, SiloAddress silo);

        [LoggerMessage(LogEvents.NearCacheReaderUnreachable, LogLevel.Warning, "Invalidations for the near cache {Reader} were not delivered; it drops what it read through this silo when it next renews its lease")]
        public static partial void NearCacheUnreachable(ILogger logger, Exception exception, GrainId reader);
    }
}
