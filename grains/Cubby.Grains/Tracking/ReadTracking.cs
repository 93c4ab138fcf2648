using Cubby.Diagnostics;
using Cubby.Grains.Messaging;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Orleans.Runtime.Services;

namespace Cubby.Grains.Tracking;

/// <summary>
/// Server-assisted client-side caching on this silo's shards: which silos' tracking connections read which keys
/// (<see cref="KeyReaders"/>, per shard), and the links that tell those silos, in order, when the keys change. A reader
/// is a silo with a RESP door (its <see cref="IKeyInvalidationListener"/>); each gets a number below
/// <see cref="MaxReaders"/>, a bit in a shard's key table. The silo keeps at most <see cref="MaxKeys"/> tracked keys:
/// past it, shards forget keys and send their invalidations at once, as Redis does past <c>tracking-table-max-keys</c>.
/// </summary>
internal sealed partial class ReadTracking : GrainServiceClient<IKeyInvalidationListener>
{
    /// <summary>Readers a shard's key table can tell apart: the silos with a RESP door in one cluster.</summary>
    public const int MaxReaders = 64;

    /// <summary>Invalidations waiting for one reader past which they collapse into one for every key.</summary>
    private const int MaxQueued = 100_000;

    private static readonly TimeSpan SendTimeout = TimeSpan.FromSeconds(5);
    private static readonly TimeSpan RetryPause = TimeSpan.FromMilliseconds(200);

    private readonly Lock _gate = new();
    private readonly Dictionary<SiloAddress, int> _numbers = [];
    private readonly ReaderLink?[] _links = new ReaderLink?[MaxReaders];
    private readonly IClusterMembershipService _membership;
    private readonly ILogger _logger;
    private readonly IServiceProvider _services;
    private readonly SiloAddress _self;
    private ILocalKeyInvalidations? _local;
    private long _keys;

    public ReadTracking(IServiceProvider services, long maxKeys)
        : base(services)
    {
        _services = services;
        _self = services.GetRequiredService<ILocalSiloDetails>().SiloAddress;
        _membership = services.GetRequiredService<IClusterMembershipService>();
        _logger = services.GetRequiredService<ILogger<ReadTracking>>();
        MaxKeys = maxKeys;
    }

    /// <summary>The most keys this silo's shards track together; 0 for no limit.</summary>
    public long MaxKeys { get; }

    /// <summary>Keys tracked by this silo's shards now.</summary>
    public long Keys => Volatile.Read(ref _keys);

    /// <summary>Whether shards must forget keys until the count is back within <see cref="MaxKeys"/>.</summary>
    public bool OverLimit => MaxKeys > 0 && Volatile.Read(ref _keys) > MaxKeys;

    /// <summary>The number of <paramref name="reader"/>, or -1 when <see cref="MaxReaders"/> silos already have one.</summary>
    public int NumberOf(SiloAddress reader)
    {
        lock (_gate)
        {
            if (_numbers.TryGetValue(reader, out var number))
            {
                return number;
            }

            // A dead silo's number is free again once nothing waits to be sent to it.
            var free = Array.FindIndex(_links, link => link is null || (link.Idle && _membership.CurrentSnapshot.GetSiloStatus(link.Reader) == SiloStatus.Dead));
            if (free < 0)
            {
                return -1;
            }

            if (_links[free] is { } old)
            {
                _numbers.Remove(old.Reader);
            }

            _links[free] = new ReaderLink(this, reader);
            _numbers[reader] = free;
            return free;
        }
    }

    /// <summary>
    /// For a reader this silo has no number left for (<see cref="MaxReaders"/> others have one): the read cannot be
    /// remembered, so the reader is told at once that the key changed, and never keeps what it read. Sent on its own,
    /// outside any link; the reader's door writes it after the read's reply.
    /// </summary>
    public void CannotTrack(SiloAddress reader, int slot, byte[] key) =>
        _ = Task.Run(async () =>
        {
            try
            {
                await GetGrainService(reader).Invalidated([new KeyInvalidation(slot, [key])]).WaitAsync(SendTimeout).ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                Log.ReaderUnreachable(_logger, exception, reader);
            }
        });

    /// <summary>Tells the tracking connections of <paramref name="silo"/> that every key changed (FLUSHALL).</summary>
    public Task TellEverythingAsync(SiloAddress silo) => GetGrainService(silo).Invalidated([KeyInvalidation.Everything]);

    public void Added(int keys) => Interlocked.Add(ref _keys, keys);

    public void Removed(int keys) => Interlocked.Add(ref _keys, -keys);

    /// <summary>Tells every reader in <paramref name="readers"/> that <paramref name="key"/> of shard <paramref name="slot"/> changed, or all its keys when null.</summary>
    public void Send(int slot, ulong readers, byte[]? key)
    {
        var invalidation = new KeyInvalidation(slot, key is null ? null : [key]);
        for (var bits = readers; bits != 0; bits &= bits - 1)
        {
            Volatile.Read(ref _links[System.Numerics.BitOperations.TrailingZeroCount(bits)])?.Enqueue(invalidation);
        }
    }

    /// <summary>
    /// One reader's invalidations, sent one batch at a time so the reader sees them in the order the changes were made.
    /// A batch that fails is sent again as one invalidation of every key, until the reader is dead.
    /// </summary>
    private sealed class ReaderLink
    {
        private readonly ReadTracking _owner;
        private readonly SerialBatches<KeyInvalidation> _batches;

        public ReaderLink(ReadTracking owner, SiloAddress reader)
        {
            (_owner, Reader) = (owner, reader);
            _batches = new(SendAsync);
        }

        public SiloAddress Reader { get; }

        public bool Idle => _batches.Idle;

        public void Enqueue(KeyInvalidation invalidation)
        {
            if (_batches.Count >= MaxQueued)
            {
                _batches.Replace(KeyInvalidation.Everything);
            }
            else
            {
                _batches.Post(invalidation);
            }
        }

        private async Task SendAsync(List<KeyInvalidation> batch)
        {
            try
            {
                // Resolved when first needed: the door that implements it depends on the shards that send to it.
                if (Reader.Equals(_owner._self) && (_owner._local ??= _owner._services.GetService<ILocalKeyInvalidations>()) is { } local)
                {
                    local.Invalidated([.. batch]);
                    return;
                }

                await _owner.GetGrainService(Reader).Invalidated([.. batch]).WaitAsync(SendTimeout).ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                // A dead reader's connections, and what they cached, died with it.
                if (_owner._membership.CurrentSnapshot.GetSiloStatus(Reader) != SiloStatus.Dead)
                {
                    Log.ReaderUnreachable(_owner._logger, exception, Reader);
                    await Task.Delay(RetryPause).ConfigureAwait(false);
                    _batches.Replace(KeyInvalidation.Everything);
                }
            }
        }
    }

    private static partial class Log
    {
        [LoggerMessage(LogEvents.TrackingReaderUnreachable, LogLevel.Warning, "Invalidations for the tracking connections of silo {Silo} were not delivered")]
        public static partial void ReaderUnreachable(ILogger logger, Exception exception, SiloAddress silo);
    }
}
