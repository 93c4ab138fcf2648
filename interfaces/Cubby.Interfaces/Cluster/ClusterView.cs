using System.Buffers.Binary;
using System.IO.Hashing;
using System.Text;

namespace Cubby.Cluster;

/// <summary>
/// A version of the cluster's membership: its active silos and, from them, the owner of every slot. Every silo and
/// client that holds the same view computes the same owners: rendezvous (highest-random-weight) hashing of each slot
/// over the silos, so a silo joining or leaving moves only the slots it gains or loses.
/// </summary>
public sealed class ClusterView
{
    private readonly int[] _owners;

    /// <summary>Creates a view and computes the owner of every slot.</summary>
    /// <param name="version">Grows with every membership change; the higher version wins.</param>
    /// <param name="slotCount">The cluster's slot count.</param>
    /// <param name="silos">The active silos; at least one.</param>
    public ClusterView(long version, int slotCount, IReadOnlyList<SiloEndpoint> silos)
    {
        ArgumentNullException.ThrowIfNull(silos);
        ArgumentOutOfRangeException.ThrowIfLessThan(slotCount, 1);
        if (silos.Count == 0)
        {
            throw new ArgumentException("A cluster view needs at least one silo.", nameof(silos));
        }

        Version = version;
        SlotCount = slotCount;
        Silos = silos;
        _owners = ComputeOwners(slotCount, silos);
    }

    /// <summary>The view's version.</summary>
    public long Version { get; }

    /// <summary>The cluster's slot count.</summary>
    public int SlotCount { get; }

    /// <summary>The active silos.</summary>
    public IReadOnlyList<SiloEndpoint> Silos { get; }

    /// <summary>The silo that owns <paramref name="slot"/>.</summary>
    /// <param name="slot">From 0 to <see cref="SlotCount"/> - 1.</param>
    public SiloEndpoint OwnerOf(int slot) => Silos[_owners[slot]];

    /// <summary>The index in <see cref="Silos"/> of the owner of <paramref name="slot"/>.</summary>
    /// <param name="slot">From 0 to <see cref="SlotCount"/> - 1.</param>
    public int OwnerIndexOf(int slot) => _owners[slot];

    private static int[] ComputeOwners(int slotCount, IReadOnlyList<SiloEndpoint> silos)
    {
        var seeds = new ulong[silos.Count];
        for (var i = 0; i < silos.Count; i++)
        {
            seeds[i] = XxHash64.HashToUInt64(Encoding.UTF8.GetBytes(silos[i].Id));
        }

        var owners = new int[slotCount];
        Span<byte> slotBytes = stackalloc byte[sizeof(int)];
        for (var slot = 0; slot < slotCount; slot++)
        {
            BinaryPrimitives.WriteInt32LittleEndian(slotBytes, slot);
            var best = 0;
            var bestScore = 0UL;
            for (var i = 0; i < silos.Count; i++)
            {
                var score = XxHash64.HashToUInt64(slotBytes, unchecked((long)seeds[i]));
                if (i == 0 || score > bestScore || (score == bestScore && string.CompareOrdinal(silos[i].Id, silos[best].Id) < 0))
                {
                    best = i;
                    bestScore = score;
                }
            }

            owners[slot] = best;
        }

        return owners;
    }
}
