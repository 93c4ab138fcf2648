using Cubby.Grains.Capacity;
using Cubby.Grains.Storage;
using Cubby.Sharding;

namespace Cubby.Grains;

/// <summary>
/// The grains a silo hosts, one per slot, activated on first use. The catalog owns the memory budget they share.
/// </summary>
internal sealed class ShardGrainCatalog : IDisposable
{
    private readonly ShardGrain?[] _grains;
    private readonly GrainSettings _settings;
    private readonly TimeProvider _time;
    private readonly Func<IEntryStore> _createStore;

    public ShardGrainCatalog(GrainSettings settings, TimeProvider time, Func<IEntryStore>? createStore = null)
    {
        _settings = settings;
        _time = time;
        _createStore = createStore ?? (static () => new ManagedEntryStore());
        ShardMap = new ShardMap(settings.SlotCount);
        Budget = new MemoryBudget(settings.MaxMemoryBytes);
        _grains = new ShardGrain?[settings.SlotCount];
        Sizer = _createStore();
    }

    public ShardMap ShardMap { get; }

    public MemoryBudget Budget { get; }

    public GrainSettings Settings => _settings;

    public int SlotCount => _grains.Length;

    /// <summary>An empty store used only to size entries before they are written.</summary>
    private IEntryStore Sizer { get; }

    public ShardGrain this[int slot] => Volatile.Read(ref _grains[slot]) ?? Activate(slot);

    public ShardGrain GrainFor(ReadOnlySpan<byte> key) => this[ShardMap.SlotOf(key)];

    /// <summary>The grain of <paramref name="slot"/> if it has been activated; never activates one.</summary>
    public ShardGrain? Find(int slot) => Volatile.Read(ref _grains[slot]);

    public long EstimateSize(int keyLength, int valueLength) => Sizer.SizeOf(keyLength, valueLength);

    /// <summary>Entries held by every active grain.</summary>
    public long Count()
    {
        long total = 0;
        foreach (var grain in _grains)
        {
            total += grain?.Count ?? 0;
        }

        return total;
    }

    public void Dispose()
    {
        for (var slot = 0; slot < _grains.Length; slot++)
        {
            Interlocked.Exchange(ref _grains[slot], null)?.Dispose();
        }

        Sizer.Dispose();
    }

    private ShardGrain Activate(int slot)
    {
        var grain = new ShardGrain(slot, _createStore(), Budget, _time, _settings.MaxValueBytes);
        var winner = Interlocked.CompareExchange(ref _grains[slot], grain, null);
        if (winner is null)
        {
            return grain;
        }

        grain.Dispose();
        return winner;
    }
}
