using Cubby.Silo.Cluster.Membership;

namespace Cubby.Silo.Dashboard;

/// <summary>
/// The last <see cref="Capacity"/> membership changes this silo has seen (a silo joined, became active, began to
/// leave, left, was declared dead), found by comparing each table version it reads with the one before.
/// </summary>
internal sealed class MembershipEventLog : IHostedService
{
    public const int Capacity = 100;

    private readonly IClusterMembership _membership;
    private readonly TimeProvider _time;
    private readonly Lock _lock = new();
    private readonly Queue<MembershipEvent> _events = new();
    private Dictionary<string, SiloStatus>? _statuses;

    public MembershipEventLog(IClusterMembership membership, TimeProvider time)
    {
        _membership = membership;
        _time = time;
    }

    /// <summary>The changes, newest first.</summary>
    public IReadOnlyList<MembershipEvent> Latest()
    {
        lock (_lock)
        {
            return [.. _events.Reverse()];
        }
    }

    /// <summary>Subscribes before the silo joins (which happens once the host has started), so the join is seen too.</summary>
    public Task StartAsync(CancellationToken cancellationToken)
    {
        _membership.Changed += OnChanged;
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken)
    {
        _membership.Changed -= OnChanged;
        return Task.CompletedTask;
    }

    private void OnChanged(MembershipSnapshot snapshot)
    {
        var now = _time.GetUtcNow();
        lock (_lock)
        {
            var first = _statuses is null;
            var previous = _statuses ?? [];
            var current = new Dictionary<string, SiloStatus>(StringComparer.Ordinal);
            foreach (var row in snapshot.Entries)
            {
                var entry = row.Entry;
                current[entry.SiloId] = entry.Status;
                var known = previous.TryGetValue(entry.SiloId, out var before);
                if (known && before == entry.Status)
                {
                    continue;
                }

                // A table read for the first time holds the cluster's history; silos long dead in it are not news.
                if (first && entry.Status == SiloStatus.Dead)
                {
                    continue;
                }

                Add(new MembershipEvent(now, entry.SiloId, $"{entry.Host}:{entry.Port}", entry.Generation, Describe(known ? before : null, entry.Status)));
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
        SiloStatus.Joining => "joining",
        SiloStatus.Active => "joined",
        SiloStatus.ShuttingDown => "leaving",
        SiloStatus.Dead when before == SiloStatus.ShuttingDown => "left",
        SiloStatus.Dead => "declared dead",
        _ => status.ToString(),
    };
}

/// <summary>One membership change as the dashboard lists it.</summary>
/// <param name="Time">When this silo saw it.</param>
/// <param name="SiloId">The silo that changed.</param>
/// <param name="Endpoint">Its RESP endpoint.</param>
/// <param name="Generation">Its generation.</param>
/// <param name="Change">joining, joined, leaving, left or declared dead.</param>
internal sealed record MembershipEvent(DateTimeOffset Time, string SiloId, string Endpoint, long Generation, string Change);
