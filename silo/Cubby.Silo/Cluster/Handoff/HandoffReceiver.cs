using System.Collections.Concurrent;
using Cubby.Grains;
using Cubby.Silo.Cluster.Slots;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Cluster.Handoff;

/// <summary>
/// The new owner's side of a handoff: entries are installed into a grain nobody can see yet, which replaces the slot's
/// grain at END, when calls start running here instead of going to the old owner.
/// </summary>
internal sealed partial class HandoffReceiver(SiloRuntime silo, ILogger<HandoffReceiver> logger) : IDisposable
{
    private readonly ConcurrentDictionary<int, Shard> _incoming = new();

    public void Begin(int slot)
    {
        var grain = silo.Catalog.CreateDetached(slot);
        if (_incoming.TryGetValue(slot, out var previous) && _incoming.TryUpdate(slot, grain, previous))
        {
            // The old owner started over (its first attempt failed part way).
            previous.Dispose();
            return;
        }

        if (!_incoming.TryAdd(slot, grain))
        {
            grain.Dispose();
            throw new InvalidOperationException($"slot {slot} is already being received");
        }
    }

    /// <summary>Installs a chunk; false when no BEGIN came for the slot.</summary>
    public bool Chunk(int slot, ReadOnlySpan<byte> entries)
    {
        if (!_incoming.TryGetValue(slot, out var grain))
        {
            return false;
        }

        grain.Install(entries, silo.Evictor);
        return true;
    }

    /// <summary>Makes the received grain the slot's, and the slot held here; false when no BEGIN came for it.</summary>
    public bool End(int slot)
    {
        if (!_incoming.TryRemove(slot, out var grain))
        {
            return false;
        }

        // Replaces whatever the slot had here: only a slot given up on (its old owner unreachable for the whole wait)
        // can have taken writes meanwhile, and the handed-off data is the slot's history.
        silo.Catalog.Attach(slot, grain);
        silo.Cluster.Slots.Set(slot, SlotState.Held);
        silo.Statistics.SlotReceived();
        Log.Received(logger, slot, grain.Count);
        return true;
    }

    /// <summary>A slot with no entries: it is held here from now on.</summary>
    public void Empty(int slot)
    {
        Abandon(slot);
        if (silo.Cluster.Slots[slot] != SlotState.Held)
        {
            silo.Cluster.Slots.Set(slot, SlotState.Held);
            silo.Statistics.SlotReceived();
        }
    }

    /// <summary>Drops a half-received slot (its sender died).</summary>
    public void Abandon(int slot)
    {
        if (_incoming.TryRemove(slot, out var grain))
        {
            grain.Dispose();
        }
    }

    public void Dispose()
    {
        foreach (var slot in _incoming.Keys)
        {
            Abandon(slot);
        }
    }

    private static partial class Log
    {
        [LoggerMessage(1, LogLevel.Debug, "Slot {Slot} received with {Entries} entries")]
        public static partial void Received(ILogger logger, int slot, long entries);
    }
}
