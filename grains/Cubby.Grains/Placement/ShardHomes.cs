using System.Buffers.Binary;
using System.Collections.Immutable;
using System.IO.Hashing;
using System.Text;
using Orleans;
using Orleans.Metadata;
using Orleans.Runtime;

namespace Cubby.Grains.Placement;

/// <summary>
/// Where each shard belongs: the silo with the highest rendezvous score for the shard number among the active silos
/// that host shard grains. A silo joining takes only the shards it wins (about 1/N of them) and a silo leaving gives
/// up only its own, so membership changes move as little data as possible. A silo that said it is stopping
/// (<see cref="IShardHomeService.Departing"/>) is no home any more, though Orleans still lists it as active.
/// </summary>
internal sealed class ShardHomes(IClusterMembershipService membership, IClusterManifestProvider manifests, ILocalSiloDetails local)
    : ILifecycleParticipant<ISiloLifecycle>, IDisposable
{
    private static readonly GrainType ShardGrainType = GrainType.Create(ShardGrain.GrainTypeName);

    private readonly CancellationTokenSource _stopping = new();
    private ImmutableHashSet<SiloAddress> _departing = [];
    private long _departures;
    private long _heardManifest = -1;
    private Task? _listening;

    /// <summary>This silo.</summary>
    public SiloAddress Self => local.SiloAddress;

    /// <summary>Whether this silo is stopping: from then on no shard's home is here.</summary>
    public bool Leaving => IsDeparting(Self);

    /// <summary>Whether <paramref name="silo"/> said it is stopping.</summary>
    public bool IsDeparting(SiloAddress silo) => Volatile.Read(ref _departing).Contains(silo);

    /// <summary>Raised after a silo said it is stopping: the homes changed though Orleans' membership did not.</summary>
    public event Action? DepartureMarked;

    /// <summary>Takes <paramref name="silo"/> out of the homes, and forgets silos Orleans has since declared dead.</summary>
    public void MarkDeparting(SiloAddress silo)
    {
        var members = membership.CurrentSnapshot;
        ImmutableInterlocked.Update(ref _departing, static (departing, state) =>
            departing.Except(departing.Where(address => state.Members.GetSiloStatus(address) == SiloStatus.Dead)).Add(state.Silo), (Members: members, Silo: silo));
        Interlocked.Increment(ref _departures);
        DepartureMarked?.Invoke();
    }

    /// <summary>Whether an active silo other than this one hosts shard grains: somewhere for this silo's shards to go.</summary>
    public bool AnyOtherHome() => Homes().Any(address => !address.Equals(Self));

    /// <summary>The home of <paramref name="shard"/> in the membership and manifests this silo knows now.</summary>
    public SiloAddress HomeOf(int shard) => Ranking().HomeOf(shard);

    /// <summary>The homes as this silo knows them now, to find the home of many shards at once; this silo when there are none.</summary>
    public HomeRanking Ranking() => new(Homes(), Self);

    /// <summary>The silos that can be a shard's home: active, hosting shard grains, not departing.</summary>
    public SiloAddress[] Homes()
    {
        var manifest = manifests.Current;
        // A silo restarted on its endpoint may briefly appear twice; only its newest generation can take shards.
        return membership.CurrentSnapshot.Members.Values
            .Where(member => member.Status == SiloStatus.Active && !IsDeparting(member.SiloAddress)
                && manifest.Silos.TryGetValue(member.SiloAddress, out var silo) && silo.Grains.ContainsKey(ShardGrainType))
            .Select(static member => member.SiloAddress)
            .GroupBy(static address => address.Endpoint)
            .Select(static generations => generations.MaxBy(static address => address.Generation)!)
            .ToArray();
    }

    /// <summary>The membership version this silo has seen: it only grows, so it orders who became a shard's primary when.</summary>
    public long MembershipVersion => membership.CurrentSnapshot.Version.Value;

    /// <summary>
    /// Grows whenever what the homes are made of may have changed: a ranking made at one stamp holds until the stamp
    /// moves. The homes are read from the cluster manifest, whose version is the membership version (major) and a count
    /// of the new silos' grain manifests fetched since (minor): a silo that joined is a home only once its manifest has
    /// arrived, after its membership change, so the membership version alone would leave rankings made in between
    /// looking current. A silo saying it departs changes neither.
    /// </summary>
    public long RankingStamp => StampOf(manifests.Current) + Volatile.Read(ref _departures);

    /// <summary>
    /// <see cref="RankingStamp"/> as of the last cluster manifest this silo heard of: two field reads, where the exact
    /// stamp walks Orleans' membership and manifest each time, for a check made on every write. It trails the exact
    /// stamp only from a manifest change until its update reaches this silo's listener, and never runs ahead of it.
    /// </summary>
    public long HeardStamp => Volatile.Read(ref _heardManifest) + Volatile.Read(ref _departures);

    public void Participate(ISiloLifecycle lifecycle) =>
        lifecycle.Subscribe(nameof(ShardHomes), ServiceLifecycleStage.RuntimeServices, StartListening, StopListening);

    public void Dispose() => _stopping.Dispose();

    private static long StampOf(ClusterManifest manifest) => (manifest.Version.Major << 20) + manifest.Version.Minor;

    private Task StartListening(CancellationToken cancellationToken)
    {
        Volatile.Write(ref _heardManifest, StampOf(manifests.Current));
        _listening = Task.Run(ListenAsync, CancellationToken.None);
        return Task.CompletedTask;
    }

    private async Task StopListening(CancellationToken cancellationToken)
    {
        await _stopping.CancelAsync().ConfigureAwait(false);
        if (_listening is { } listening)
        {
            await listening.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    private async Task ListenAsync()
    {
        try
        {
            await foreach (var manifest in manifests.Updates.WithCancellation(_stopping.Token).ConfigureAwait(false))
            {
                // Updates may arrive late or skip versions; the current manifest is at least as new as any of them.
                Volatile.Write(ref _heardManifest, StampOf(manifests.Current));
            }
        }
        catch (OperationCanceledException) when (_stopping.IsCancellationRequested)
        {
        }
    }

    /// <summary>
    /// Where the replicas of <paramref name="shard"/>, whose primary is on this silo, belong: the <paramref name="count"/>
    /// best-ranked homes other than this silo. When the primary's silo dies, its shard's new home is the best-ranked of
    /// them, the silo that kept the first replica. A primary that is not at its home is about to move there, so the
    /// home is left out too: a copy on the silo it moves to would die with the move's target.
    /// </summary>
    public SiloAddress[] ReplicasOf(int shard, int count)
    {
        var ranked = Homes().OrderByDescending(address => Score(shard, address)).ThenBy(static address => address).ToArray();
        var awayFromHome = ranked.Length > 0 && !ranked[0].Equals(Self);
        return [.. ranked.Skip(awayFromHome ? 1 : 0).Where(address => !address.Equals(Self)).Take(count)];
    }

    /// <summary>The silo of <paramref name="silos"/> with the highest score for <paramref name="shard"/>.</summary>
    public static SiloAddress Choose(int shard, IReadOnlyList<SiloAddress> silos) => new HomeRanking(silos, silos[0]).HomeOf(shard);

    private static ulong Score(int shard, SiloAddress silo) => Score(shard, Seed(silo));

    /// <summary>The seed of <paramref name="silo"/>'s scores.</summary>
    // The endpoint, not the generation: a silo restarted on the same address gets its shards back.
    internal static ulong Seed(SiloAddress silo) => Seed(silo.Endpoint.ToString());

    /// <summary>The rendezvous score of the silo at <paramref name="endpoint"/> (<c>host:port</c>) for <paramref name="shard"/>.</summary>
    internal static ulong Score(int shard, string endpoint) => Score(shard, Seed(endpoint));

    /// <summary>The hash of a silo's endpoint (<c>host:port</c>) that seeds its score for every shard.</summary>
    internal static ulong Seed(string endpoint) => XxHash64.HashToUInt64(Encoding.UTF8.GetBytes(endpoint));

    /// <summary>The rendezvous score, for <paramref name="shard"/>, of the silo whose <see cref="Seed(string)"/> is <paramref name="seed"/>.</summary>
    internal static ulong Score(int shard, ulong seed)
    {
        Span<byte> shardBytes = stackalloc byte[sizeof(int)];
        BinaryPrimitives.WriteInt32LittleEndian(shardBytes, shard);
        return XxHash64.HashToUInt64(shardBytes, unchecked((long)seed));
    }
}
