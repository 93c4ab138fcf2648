using System.Runtime.InteropServices;
using Cubby.Text;

namespace Cubby.Grains.Filling;

/// <summary>
/// The keys of one shard that a caller missed and was granted the right to fill: one lease per key, held by one owner
/// until a deadline, and the wake-up of everyone waiting for it. The key's next change of any kind (the filler's write
/// above all), the owner giving the lease up, or the shard closing wakes the waiters; a lease past its deadline is
/// granted to the next caller who asks. Not thread-safe: the shard calls it in its turn.
/// </summary>
internal sealed class FillLeases
{
    private readonly Dictionary<byte[], Lease> _leases = new(ByteStringComparer.Instance);

    public int Count => _leases.Count;

    /// <summary>
    /// Grants <paramref name="owner"/> the lease of <paramref name="key"/> until <paramref name="deadline"/> (renewing it
    /// when it already holds it) and returns null, or returns what to wait on while another owner holds it.
    /// </summary>
    public Task? Ask(ReadOnlySpan<byte> key, Guid owner, long now, long deadline)
    {
        ref var lease = ref CollectionsMarshal.GetValueRefOrAddDefault(_leases.GetAlternateLookup<ReadOnlySpan<byte>>(), key, out var exists);
        if (exists && lease!.Owner != owner && lease.Deadline > now)
        {
            return lease.Woken.Task;
        }

        if (exists && lease!.Owner != owner)
        {
            // Its owner let it run out (stopped, or lost its gateway): whoever waited asks again and finds this one's lease.
            lease.Woken.TrySetResult();
        }

        lease = exists && lease!.Owner == owner ? lease with { Deadline = deadline } : new Lease(owner, deadline, new(TaskCreationOptions.RunContinuationsAsynchronously));
        return null;
    }

    /// <summary>What ends the lease on <paramref name="key"/>, or null when nobody holds one.</summary>
    public Task? EndingOf(ReadOnlySpan<byte> key) =>
        _leases.Count != 0 && _leases.GetAlternateLookup<ReadOnlySpan<byte>>().TryGetValue(key, out var lease) ? lease.Woken.Task : null;

    /// <summary>The owner gave the lease up (its factory failed or was cancelled): the waiters wake and one of them gets it.</summary>
    public void Release(ReadOnlySpan<byte> key, Guid owner)
    {
        var lookup = _leases.GetAlternateLookup<ReadOnlySpan<byte>>();
        if (lookup.TryGetValue(key, out var lease) && lease.Owner == owner && lookup.Remove(key))
        {
            lease.Woken.TrySetResult();
        }
    }

    /// <summary><paramref name="key"/> changed: its lease is over and its waiters read it again.</summary>
    public void Changed(ReadOnlySpan<byte> key)
    {
        if (_leases.Count != 0 && _leases.GetAlternateLookup<ReadOnlySpan<byte>>().Remove(key, out _, out var lease))
        {
            lease.Woken.TrySetResult();
        }
    }

    /// <summary>Every key changed (a flush), or the shard is leaving its silo: every lease is over.</summary>
    public void ChangedAll()
    {
        foreach (var lease in _leases.Values)
        {
            lease.Woken.TrySetResult();
        }

        _leases.Clear();
    }

    private sealed record Lease(Guid Owner, long Deadline, TaskCompletionSource Woken);
}
