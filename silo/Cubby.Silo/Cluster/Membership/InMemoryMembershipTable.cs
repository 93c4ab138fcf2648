using System.Globalization;

namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// A membership table in this process's memory: for the Development provider's primary silo and for tests. One lock
/// guards the whole table, which makes every operation trivially atomic; membership changes are rare.
/// </summary>
internal sealed class InMemoryMembershipTable : IMembershipTable
{
    private readonly Lock _lock = new();
    private readonly Dictionary<string, VersionedEntry> _rows = new(StringComparer.Ordinal);
    private long _version;
    private bool _initialized;

    /// <summary>Creates an empty table for the cluster <paramref name="clusterId"/>; call <see cref="InitializeAsync"/> first.</summary>
    public InMemoryMembershipTable(string clusterId)
    {
        ArgumentException.ThrowIfNullOrEmpty(clusterId);
        ClusterId = clusterId;
    }

    /// <summary>The cluster this table belongs to.</summary>
    public string ClusterId { get; }

    /// <inheritdoc />
    public Task InitializeAsync(CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        lock (_lock)
        {
            _initialized = true;
        }

        return Task.CompletedTask;
    }

    /// <inheritdoc />
    public Task<MembershipSnapshot> ReadAllAsync(CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        lock (_lock)
        {
            if (!_initialized)
            {
                throw MembershipErrors.NotInitialized(ClusterId);
            }

            var rows = _rows.Values.ToArray();
            Array.Sort(rows, static (left, right) => string.CompareOrdinal(left.Entry.SiloId, right.Entry.SiloId));
            return Task.FromResult(new MembershipSnapshot(_version, rows));
        }
    }

    /// <inheritdoc />
    public Task<bool> TryInsertAsync(MembershipEntry entry, long expectedVersion, CancellationToken cancellationToken)
    {
        var normalized = MembershipEntryRules.Normalize(entry);
        cancellationToken.ThrowIfCancellationRequested();
        lock (_lock)
        {
            if (!_initialized || _version != expectedVersion || _rows.ContainsKey(normalized.SiloId))
            {
                return Task.FromResult(false);
            }

            _rows.Add(normalized.SiloId, new VersionedEntry(normalized, ETagText(1)));
            _version++;
            return Task.FromResult(true);
        }
    }

    /// <inheritdoc />
    public Task<bool> TryUpdateAsync(MembershipEntry entry, string etag, long expectedVersion, CancellationToken cancellationToken)
    {
        var normalized = MembershipEntryRules.Normalize(entry);
        ArgumentNullException.ThrowIfNull(etag);
        cancellationToken.ThrowIfCancellationRequested();
        lock (_lock)
        {
            if (!_initialized
                || _version != expectedVersion
                || !_rows.TryGetValue(normalized.SiloId, out var current)
                || !string.Equals(current.ETag, etag, StringComparison.Ordinal))
            {
                return Task.FromResult(false);
            }

            var stored = normalized with { IAmAliveAt = MembershipEntryRules.Later(current.Entry.IAmAliveAt, normalized.IAmAliveAt) };
            var rowVersion = long.Parse(current.ETag, NumberStyles.None, CultureInfo.InvariantCulture);
            _rows[normalized.SiloId] = new VersionedEntry(stored, ETagText(rowVersion + 1));
            _version++;
            return Task.FromResult(true);
        }
    }

    /// <inheritdoc />
    public Task UpdateIAmAliveAsync(string siloId, DateTimeOffset at, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(siloId);
        cancellationToken.ThrowIfCancellationRequested();
        var time = MembershipEntryRules.Normalize(at);
        lock (_lock)
        {
            if (!_initialized || !_rows.TryGetValue(siloId, out var current))
            {
                throw MembershipErrors.UnknownSilo(ClusterId, siloId);
            }

            var alive = MembershipEntryRules.Later(current.Entry.IAmAliveAt, time);
            _rows[siloId] = current with { Entry = current.Entry with { IAmAliveAt = alive } };
        }

        return Task.CompletedTask;
    }

    /// <inheritdoc />
    public Task<int> DeleteDefunctAsync(DateTimeOffset deadBefore, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        lock (_lock)
        {
            var defunct = _rows.Values
                .Where(row => row.Entry.Status == SiloStatus.Dead && row.Entry.IAmAliveAt < deadBefore)
                .Select(row => row.Entry.SiloId)
                .ToArray();
            foreach (var siloId in defunct)
            {
                _rows.Remove(siloId);
            }

            return Task.FromResult(defunct.Length);
        }
    }

    /// <inheritdoc />
    public Task DeleteClusterAsync(CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        lock (_lock)
        {
            _rows.Clear();
            _version = 0;
            _initialized = false;
        }

        return Task.CompletedTask;
    }

    private static string ETagText(long rowVersion) => rowVersion.ToString(CultureInfo.InvariantCulture);
}
