using Cubby.Sharding;
using Orleans.Configuration;

namespace Cubby.Grains.Fencing;

/// <summary>
/// Whether this silo may serve its shards now: only while it has lately confirmed that it is still a member of the
/// cluster (<see cref="FenceKeeper"/>), and never again once it learned it was declared dead. Other silos may take over
/// a silo's shards once they declare it dead, which Orleans' probes allow no sooner than
/// <c>ProbeTimeout × NumMissedProbesLimit</c> after they last heard from it; a confirmation keeps this silo serving for
/// half of that, counted from when it was asked for, so a silo cut off stops before its shards can resume elsewhere.
/// </summary>
/// <remarks>
/// Checked whenever a caller takes a shard's turn, so it is a comparison of two numbers. Real time, not the silo's
/// <see cref="TimeProvider"/>: the bound is against other silos' probes over the real network.
/// </remarks>
internal sealed class ServingFence
{
    private readonly long _servingFor;
    private long _servingUntil;
    private volatile bool _dead;

    /// <summary>A fence whose confirmations last <paramref name="servingFor"/>; serving that long from now before the first.</summary>
    public ServingFence(TimeSpan servingFor)
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(servingFor, TimeSpan.Zero);
        ServingFor = servingFor;
        _servingFor = (long)(servingFor.TotalSeconds * TimeProvider.System.TimestampFrequency);
        _servingUntil = TimeProvider.System.GetTimestamp() + _servingFor;
    }

    /// <summary>The fence for a silo whose peers probe it with <paramref name="membership"/>'s settings.</summary>
    public static ServingFence For(ClusterMembershipOptions membership) =>
        new(membership.ProbeTimeout * membership.NumMissedProbesLimit / 2);

    /// <summary>How long one confirmation lets the silo serve, counted from when it was asked for.</summary>
    public TimeSpan ServingFor { get; }

    /// <summary>Whether the silo learned that the cluster declared it dead: it never serves again.</summary>
    public bool Dead => _dead;

    public bool IsServing => !_dead && TimeProvider.System.GetTimestamp() < Volatile.Read(ref _servingUntil);

    /// <summary>How much longer the silo may serve its shards without a new confirmation; zero when it may not now.</summary>
    public TimeSpan Remaining =>
        _dead ? TimeSpan.Zero : TimeSpan.FromSeconds(Math.Max(0, Volatile.Read(ref _servingUntil) - TimeProvider.System.GetTimestamp()) / (double)TimeProvider.System.TimestampFrequency);

    /// <summary>A majority of the members answered that they see this silo active, to a round begun at <paramref name="askedAt"/>.</summary>
    public void Confirmed(long askedAt)
    {
        var until = askedAt + _servingFor;
        var current = Volatile.Read(ref _servingUntil);
        while (until > current && Interlocked.CompareExchange(ref _servingUntil, until, current) is var seen && seen != current)
        {
            current = seen;
        }
    }

    /// <summary>The cluster declared this silo dead.</summary>
    public void DeclaredDead() => _dead = true;

    /// <summary>Throws unless the silo may serve shard <paramref name="slot"/> now.</summary>
    /// <exception cref="SiloFencedException">It may not.</exception>
    public void ThrowIfNotServing(int slot) => ThrowIfNotServing($"shard {slot}");

    /// <summary>Throws unless the silo may serve its shards now; <paramref name="what"/> names what was asked of it.</summary>
    /// <exception cref="SiloFencedException">It may not.</exception>
    public void ThrowIfNotServing(string what)
    {
        if (!IsServing)
        {
            throw new SiloFencedException(_dead
                ? $"This silo was declared dead by the cluster and serves no shard ({what}); call another silo."
                : $"This silo has not confirmed it is still a member of the cluster within {ServingFor.TotalMilliseconds:0} ms (cut off from most silos?), so it serves no shard ({what}) until it does; try again.");
        }
    }
}
