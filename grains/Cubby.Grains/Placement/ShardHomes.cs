using System.Buffers.Binary;
using System.IO.Hashing;
using System.Text;
using Orleans.Metadata;
using Orleans.Runtime;

namespace Cubby.Grains.Placement;

/// <summary>
/// Where each shard belongs: the silo with the highest rendezvous score for the shard number among the active silos
/// that host shard grains. A silo joining takes only the shards it wins (about 1/N of them) and a silo leaving gives
/// up only its own, so membership changes move as little data as possible.
/// </summary>
internal sealed class ShardHomes(IClusterMembershipService membership, IClusterManifestProvider manifests, ILocalSiloDetails local)
{
    private static readonly GrainType ShardGrainType = GrainType.Create(ShardGrain.GrainTypeName);

    /// <summary>This silo.</summary>
    public SiloAddress Self => local.SiloAddress;

    /// <summary>Set when this silo stops: from then on no shard's home is here.</summary>
    public bool Leaving { get; set; }

    /// <summary>The home of <paramref name="shard"/> in the membership and manifests this silo knows now.</summary>
    public SiloAddress HomeOf(int shard)
    {
        var manifest = manifests.Current;
        var candidates = membership.CurrentSnapshot.Members.Values
            .Where(member => member.Status == SiloStatus.Active && !(Leaving && member.SiloAddress.Equals(Self))
                && manifest.Silos.TryGetValue(member.SiloAddress, out var silo) && silo.Grains.ContainsKey(ShardGrainType))
            .Select(static member => member.SiloAddress)
            .ToArray();
        return candidates.Length == 0 ? Self : Choose(shard, candidates);
    }

    /// <summary>The silo of <paramref name="silos"/> with the highest score for <paramref name="shard"/>.</summary>
    public static SiloAddress Choose(int shard, IReadOnlyList<SiloAddress> silos)
    {
        Span<byte> shardBytes = stackalloc byte[sizeof(int)];
        BinaryPrimitives.WriteInt32LittleEndian(shardBytes, shard);
        var best = silos[0];
        var bestScore = 0UL;
        foreach (var silo in silos)
        {
            // The endpoint, not the generation: a silo restarted on the same address gets its shards back.
            var seed = XxHash64.HashToUInt64(Encoding.UTF8.GetBytes(silo.Endpoint.ToString()));
            var score = XxHash64.HashToUInt64(shardBytes, unchecked((long)seed));
            if (score > bestScore || (score == bestScore && silo.CompareTo(best) < 0))
            {
                best = silo;
                bestScore = score;
            }
        }

        return best;
    }
}
