using System.Runtime.InteropServices;

namespace Cubby.Silo.Cluster.Slots;

/// <summary>
/// Where each slot's data is, as far as this silo knows, and a gate every local call passes through. A call enters the
/// slot's gate, checks that the slot is <see cref="SlotState.Held"/>, runs, and leaves; freezing a slot for handoff
/// closes the gate and waits until the calls inside have left, so no write can slip in after its entries were sent.
/// </summary>
internal sealed class SlotDirectory
{
    private readonly Gate[] _gates;
    private readonly string?[] _awaitedFrom;
    private TaskCompletionSource _changed = NewSignal();

    public SlotDirectory(int slotCount, SlotState initial)
    {
        _gates = new Gate[slotCount];
        _awaitedFrom = new string?[slotCount];
        for (var slot = 0; slot < slotCount; slot++)
        {
            _gates[slot].State = (int)initial;
        }
    }

    public int SlotCount => _gates.Length;

    public SlotState this[int slot] => (SlotState)Volatile.Read(ref _gates[slot].State);

    /// <summary>The silo id this silo awaits a slot's data from, when <see cref="SlotState.Awaiting"/>.</summary>
    public string? AwaitedFrom(int slot) => Volatile.Read(ref _awaitedFrom[slot]);

    /// <summary>A task that completes at the next state change of any slot.</summary>
    public Task Changed => Volatile.Read(ref _changed).Task;

    /// <summary>Enters a held slot's gate; false (and not entered) when the slot is not held here.</summary>
    public bool TryEnter(int slot)
    {
        ref var gate = ref _gates[slot];
        Interlocked.Increment(ref gate.Users);
        if (Volatile.Read(ref gate.State) == (int)SlotState.Held)
        {
            return true;
        }

        Interlocked.Decrement(ref gate.Users);
        return false;
    }

    public void Exit(int slot) => Interlocked.Decrement(ref _gates[slot].Users);

    /// <summary>Held → Frozen, then waits for the calls inside to leave. False when the slot was not held.</summary>
    public bool TryFreeze(int slot)
    {
        ref var gate = ref _gates[slot];
        if (Interlocked.CompareExchange(ref gate.State, (int)SlotState.Frozen, (int)SlotState.Held) != (int)SlotState.Held)
        {
            return false;
        }

        // Calls inside are single grain turns: microseconds. Spinning keeps this simple and off the timer queue.
        var spinner = default(SpinWait);
        while (Volatile.Read(ref gate.Users) != 0)
        {
            spinner.SpinOnce();
        }

        Signal();
        return true;
    }

    /// <summary>Sets a slot's state (and whom it awaits data from), waking every call waiting on a change.</summary>
    public void Set(int slot, SlotState state, string? awaitedFrom = null)
    {
        Volatile.Write(ref _awaitedFrom[slot], state == SlotState.Awaiting ? awaitedFrom : null);
        Interlocked.Exchange(ref _gates[slot].State, (int)state);
        Signal();
    }

    /// <summary>Sets a slot's state only if it is <paramref name="expected"/>.</summary>
    public bool TrySet(int slot, SlotState expected, SlotState state)
    {
        if (Interlocked.CompareExchange(ref _gates[slot].State, (int)state, (int)expected) != (int)expected)
        {
            return false;
        }

        if (state != SlotState.Awaiting)
        {
            Volatile.Write(ref _awaitedFrom[slot], null);
        }

        Signal();
        return true;
    }

    /// <summary>How many slots are in <paramref name="state"/>.</summary>
    public int Count(SlotState state)
    {
        var count = 0;
        for (var slot = 0; slot < _gates.Length; slot++)
        {
            count += this[slot] == state ? 1 : 0;
        }

        return count;
    }

    private void Signal() => Interlocked.Exchange(ref _changed, NewSignal()).TrySetResult();

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    // A cache line each, so calls on different slots do not contend on one line.
    [StructLayout(LayoutKind.Explicit, Size = 64)]
    private struct Gate
    {
        [FieldOffset(0)]
        public int State;

        [FieldOffset(4)]
        public int Users;
    }
}
