namespace Cubby.Silo.Dashboard;

/// <summary>
/// The last <see cref="Capacity"/> membership changes this silo has seen (a silo joined, became active, began to
/// leave, left, was declared dead), found by comparing each of Orleans' membership snapshots with the one before.
/// </summary>
internal sealed class MembershipEventLog(IClusterMembershipService membership, TimeProvider time) : BackgroundService
{
    public const int Capacity = 100;

    private readonly Lock _lock = new();
    private readonly Queue<MembershipEvent> _events = new();
    private Dictionary<SiloAddress, SiloStatus>? _statuses;

    /// <summary>The changes, newest first.</summary>
    public IReadOnlyList<MembershipEvent> Latest()
    {
        lock (_lock)
        {
            return [.. _events.Reverse()];
        }
    }

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        try
        {
            await foreach (var snapshot in membership.MembershipUpdates.WithCancellation(stoppingToken).ConfigureAwait(false))
            {
                OnChanged(snapshot);
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
            // The silo is stopping.
        }
    }

    private void OnChanged(ClusterMembershipSnapshot snapshot)
    {
        var now = time.GetUtcNow();
        lock (_lock)
        {
            var first = _statuses is null;
            var previous = _statuses ?? [];
            var current = new Dictionary<SiloAddress, SiloStatus>();
            foreach (var member in snapshot.Members.Values)
            {
                current[member.SiloAddress] = member.Status;
                var known = previous.TryGetValue(member.SiloAddress, out var before);
                if ((known && before == member.Status) || (first && member.Status == SiloStatus.Dead))
                {
                    // Unchanged, or a silo long dead when this one first read the table: not news.
                    continue;
                }

                Add(new MembershipEvent(now, member.SiloAddress.ToParsableString(), member.SiloAddress.Endpoint.ToString(), member.SiloAddress.Generation, Describe(known ? before : null, member.Status)));
            }

            _statuses = current;
        }
    }

    private void Add(MembershipEvent change)
    {
        _events.Enqueue(change);
        while (_events.Count > Capacity)
        {
            _events.Dequeue();
        }
    }

    private static string Describe(SiloStatus? before, SiloStatus status) => status switch
    {
        SiloStatus.Joining or SiloStatus.Created => "joining",
        SiloStatus.Active => "joined",
        SiloStatus.ShuttingDown or SiloStatus.Stopping => "leaving",
        SiloStatus.Dead when before is SiloStatus.ShuttingDown or SiloStatus.Stopping => "left",
        SiloStatus.Dead => "declared dead",
        _ => status.ToString(),
    };
}

/// <summary>One membership change as the dashboard lists it.</summary>
/// <param name="Time">When this silo saw it.</param>
/// <param name="SiloId">The silo's Orleans address.</param>
/// <param name="Endpoint">Its Orleans silo endpoint.</param>
/// <param name="Generation">Its generation.</param>
/// <param name="Change">joining, joined, leaving, left or declared dead.</param>
internal sealed record MembershipEvent(DateTimeOffset Time, string SiloId, string Endpoint, long Generation, string Change);
