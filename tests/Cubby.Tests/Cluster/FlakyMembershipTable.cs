using Cubby.Silo.Cluster.Membership;

namespace Cubby.Tests.Cluster;

/// <summary>An in-memory table that fails every call while <see cref="Down"/> is set, as a database outage would.</summary>
internal sealed class FlakyMembershipTable(string clusterId) : IMembershipTable
{
    public InMemoryMembershipTable Inner { get; } = new(clusterId);

    private bool _down;

    public bool Down
    {
        get => Volatile.Read(ref _down);
        set => Volatile.Write(ref _down, value);
    }

    public Task InitializeAsync(CancellationToken cancellationToken) => Guard(() => Inner.InitializeAsync(cancellationToken));

    public Task<MembershipSnapshot> ReadAllAsync(CancellationToken cancellationToken) => Guard(() => Inner.ReadAllAsync(cancellationToken));

    public Task<bool> TryInsertAsync(MembershipEntry entry, long expectedVersion, CancellationToken cancellationToken) =>
        Guard(() => Inner.TryInsertAsync(entry, expectedVersion, cancellationToken));

    public Task<bool> TryUpdateAsync(MembershipEntry entry, string etag, long expectedVersion, CancellationToken cancellationToken) =>
        Guard(() => Inner.TryUpdateAsync(entry, etag, expectedVersion, cancellationToken));

    public Task UpdateIAmAliveAsync(string siloId, DateTimeOffset at, CancellationToken cancellationToken) =>
        Guard(() => Inner.UpdateIAmAliveAsync(siloId, at, cancellationToken));

    public Task<int> DeleteDefunctAsync(DateTimeOffset deadBefore, CancellationToken cancellationToken) =>
        Guard(() => Inner.DeleteDefunctAsync(deadBefore, cancellationToken));

    public Task DeleteClusterAsync(CancellationToken cancellationToken) => Inner.DeleteClusterAsync(cancellationToken);

    private Task<T> Guard<T>(Func<Task<T>> call) => Down ? Task.FromException<T>(Outage()) : call();

    private Task Guard(Func<Task> call) => Down ? Task.FromException(Outage()) : call();

    private static TimeoutException Outage() => new("The table is down.");
}
