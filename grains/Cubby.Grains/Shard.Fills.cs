using Cubby.Grains.Filling;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    // Made by the first caller who would fill a key: a write to a shard nobody fills costs a null check.
    private FillLeases? _fills;

    /// <summary>Keys whose filling someone holds a lease on, for tests and diagnostics.</summary>
    public int FillLeaseCount
    {
        get
        {
            lock (_turn)
            {
                return _fills?.Count ?? 0;
            }
        }
    }

    /// <summary>
    /// Grants <paramref name="owner"/>, who missed <paramref name="key"/>, the right to fill it for
    /// <paramref name="lease"/> (null is returned), or returns what to wait on while another owner fills it: the key
    /// changing, the filler giving up, or the shard leaving. Asked again by the owner, it renews the lease.
    /// </summary>
    public Task? AskToFill(ReadOnlySpan<byte> key, Guid owner, TimeSpan lease)
    {
        RequireTurn();
        var now = _time.GetTimestamp();
        return (_fills ??= new()).Ask(key, owner, now, now + (long)(lease.TotalSeconds * _time.TimestampFrequency));
    }

    /// <summary>
    /// What ends the lease on <paramref name="key"/> (the key changing, the filler giving up, the shard leaving), or
    /// null when there is none. Takes the turn itself, only to look the lease up: a waiter reads no entry.
    /// </summary>
    public Task? FillEnding(ReadOnlySpan<byte> key)
    {
        lock (_turn)
        {
            return _fills?.EndingOf(key);
        }
    }

    /// <summary><paramref name="owner"/> will not fill <paramref name="key"/> after all; the next waiter may.</summary>
    public void GiveUpFill(ReadOnlySpan<byte> key, Guid owner)
    {
        RequireTurn();
        _fills?.Release(key, owner);
    }

    /// <summary>Wakes every waiter: the shard is leaving this silo, and they ask wherever it goes.</summary>
    private void WakeFillers()
    {
        _fills?.ChangedAll();
    }
}
