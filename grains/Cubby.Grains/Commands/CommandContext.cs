using System.Buffers;
using Cubby.Grains.Hosting;
using Cubby.Resp;

namespace Cubby.Grains.Commands;

/// <summary>
/// What a command on keys runs against, handed to its handler by whoever routed it: the shards of its keys, already
/// entered (by a silo's RESP front door on the connection's thread, or by the shard's grain running a relayed command),
/// and the writer its one reply goes to. A handler never looks a shard up or takes a turn itself: the same handler
/// runs unchanged wherever its shard is.
/// </summary>
internal sealed class CommandContext
{
    private readonly ShardCatalog _catalog;
    private readonly RespFrontDoor? _respDoor;
    private Shard? _shard;
    private Shard?[] _shardsByArgument = [];

    // Reads that found, and did not find, their key since TakeLookups.
    private long _hits;
    private long _misses;
    private List<int>? _boundaries;
    private ArrayBufferWriter<byte>? _captured;
    private UnsettledShards? _unsettled;

    /// <param name="catalog">The shards this silo holds, their settings and their clock.</param>
    /// <param name="output">Where replies are written.</param>
    /// <param name="respDoor">Where clients reach this silo's RESP front door; null on a silo without one.</param>
    public CommandContext(ShardCatalog catalog, IBufferWriter<byte> output, RespFrontDoor? respDoor = null)
    {
        _catalog = catalog;
        _respDoor = respDoor;
        Writer = new RespWriter(output);
    }

    public RespWriter Writer { get; private set; }

    /// <summary>
    /// The silo whose tracking connection runs the current command, when its reads are to be tracked (CLIENT TRACKING):
    /// the shards remember the keys it reads and tell that silo when they change. Null otherwise.
    /// </summary>
    public SiloAddress? TrackReadsFor { get; set; }

    /// <summary>A buffer for a reply that must be held back until a command knows its outcome (SET ... GET).</summary>
    public ArrayBufferWriter<byte> Scratch { get; } = new();

    /// <summary>Where clients reach this silo's RESP front door (<c>host:port</c>); null on a silo that has none.</summary>
    public string? RespEndpoint => _respDoor?.Endpoint is { Length: > 0 } endpoint ? endpoint : null;

    public ShardCatalog Catalog => _catalog;

    public int MaxValueBytes => _catalog.Options.MaxValueBytes;

    public long NowMilliseconds => _catalog.Time.GetUtcNow().ToUnixTimeMilliseconds();

    /// <summary>The entered shard of a command whose keys are all in one shard.</summary>
    public Shard Shard => _shard ?? throw new InvalidOperationException("The command's keys span several shards: use ShardAt.");

    /// <summary>The entered shard of the key at argument <paramref name="argument"/>.</summary>
    public Shard ShardAt(int argument) =>
        _shard ?? _shardsByArgument[argument] ?? throw new InvalidOperationException($"No shard was entered for argument {argument}.");

    /// <summary>Sends replies to <paramref name="writer"/> until swapped back; returns the writer in use before.</summary>
    public RespWriter SwapWriter(RespWriter writer)
    {
        var previous = Writer;
        Writer = writer;
        return previous;
    }

    /// <summary>Runs the next command on <paramref name="shard"/>, whose turn the caller holds, for every one of its keys.</summary>
    public void Enter(Shard shard) => _shard = shard;

    /// <summary>Whether replies written since the last <see cref="WhenSettledAsync"/> wait for shards to settle.</summary>
    public bool AwaitsSettling => _unsettled is { Count: > 0 };

    /// <summary>
    /// Notes that a command that <paramref name="wrote"/> or only read ran on <paramref name="shard"/>, whose turn it has
    /// released: its reply must not reach the client before the shard settled what it changed by then
    /// (<see cref="WhenSettledAsync"/>).
    /// </summary>
    public void RanOn(Shard shard, bool wrote)
    {
        if (shard.MustSettle(wrote))
        {
            (_unsettled ??= new()).Note(shard, wrote);
        }
    }

    /// <summary>
    /// Completes when every shard noted so far settled, as <see cref="WhenSettledAsync"/> does, but leaves them noted:
    /// for a step that must wait before it goes on (EXEC before its outcome), while the replies still wait for
    /// <see cref="WhenSettledAsync"/>, which fails the same way if a shard failed.
    /// </summary>
    /// <exception cref="InvalidOperationException">A shard can no longer acknowledge writes (its replicas follow a newer primary).</exception>
    public async ValueTask WhenNotedSettledAsync()
    {
        for (var i = 0; i < (_unsettled?.Count ?? 0); i++)
        {
            var (shard, wrote) = _unsettled![i];
            await shard.WhenSettledAsync(wrote).ConfigureAwait(false);
        }
    }

    /// <summary>Completes when every shard noted by <see cref="RanOn"/> settled what those commands wrote or read (<see cref="Shard.WhenSettledAsync"/>).</summary>
    /// <exception cref="InvalidOperationException">A shard can no longer acknowledge writes (its replicas follow a newer primary).</exception>
    public async ValueTask WhenSettledAsync()
    {
        if (_unsettled is not { } shards)
        {
            return;
        }

        try
        {
            for (var i = 0; i < shards.Count; i++)
            {
                await shards[i].Shard.WhenSettledAsync(shards[i].Wrote).ConfigureAwait(false);
            }
        }
        finally
        {
            shards.Clear();
        }
    }

    /// <summary>Runs the next command with the key at <paramref name="argument"/> on <paramref name="shard"/>, whose turn the caller holds.</summary>
    public void EnterAt(int argument, int argumentCount, Shard shard)
    {
        if (_shardsByArgument.Length < argumentCount)
        {
            _shardsByArgument = new Shard?[Math.Max(argumentCount, 2 * _shardsByArgument.Length)];
        }

        _shardsByArgument[argument] = shard;
    }

    /// <summary>Forgets the entered shards once the command ran (the caller then releases their turns).</summary>
    public void Leave()
    {
        _shard = null;
        Array.Clear(_shardsByArgument);
    }

    /// <summary>
    /// Notes in <paramref name="boundaries"/> where the parts of a per-key array reply end in <paramref name="output"/>,
    /// which the current writer writes to (<see cref="MarkBoundary"/>), so that the replies of a split command's shares
    /// are merged without parsing them.
    /// </summary>
    public void TrackBoundaries(ArrayBufferWriter<byte> output, List<int> boundaries)
    {
        _captured = output;
        _boundaries = boundaries;
    }

    public void StopTrackingBoundaries()
    {
        _captured = null;
        _boundaries = null;
    }

    /// <summary>Notes the end of a part of a per-key array reply (MGET's): its header, then each element.</summary>
    public void MarkBoundary() => _boundaries?.Add(_captured!.WrittenCount);

    public void Hit() => _hits++;

    public void Miss() => _misses++;

    /// <summary>The reads counted since the last call, which start again from zero.</summary>
    public (long Hits, long Misses) TakeLookups()
    {
        var counted = (_hits, _misses);
        (_hits, _misses) = (0, 0);
        return counted;
    }

    /// <summary>Checks a key argument; on failure writes the error reply and returns false, so a handler just returns.</summary>
    public bool CheckKey(ReadOnlySpan<byte> key)
    {
        if (key.IsEmpty)
        {
            Writer.WriteError(ErrorText.EmptyKey);
            return false;
        }

        if (key.Length > _catalog.Options.MaxKeyBytes)
        {
            Writer.WriteError(ErrorText.KeyTooLong(key.Length, _catalog.Options.MaxKeyBytes));
            return false;
        }

        return true;
    }
}
