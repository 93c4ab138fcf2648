namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// What every membership table checks and normalizes before it stores an entry, so all implementations accept the
/// same entries and give the same ones back.
/// </summary>
internal static class MembershipEntryRules
{
    private const long TicksPerMicrosecond = TimeSpan.TicksPerMicrosecond;

    /// <summary>
    /// Throws for an entry no table may hold; otherwise returns it with every time in UTC truncated to the
    /// microsecond (PostgreSQL's precision) and its suspicions copied, so later changes to the caller's list do not
    /// leak into the table.
    /// </summary>
    public static MembershipEntry Normalize(MembershipEntry entry)
    {
        ArgumentNullException.ThrowIfNull(entry);
        ArgumentException.ThrowIfNullOrEmpty(entry.SiloId, nameof(entry));
        ArgumentException.ThrowIfNullOrEmpty(entry.Host, nameof(entry));
        if (entry.Port is < 0 or > 65535)
        {
            throw new ArgumentOutOfRangeException(nameof(entry), entry.Port, "A silo's port must be between 0 and 65535.");
        }

        if (entry.SlotCount <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(entry), entry.SlotCount, "A silo's slot count must be positive.");
        }

        if (!Enum.IsDefined(entry.Status))
        {
            throw new ArgumentOutOfRangeException(nameof(entry), entry.Status, "Unknown silo status.");
        }

        ArgumentNullException.ThrowIfNull(entry.Suspicions, nameof(entry));
        var suspicions = new Suspicion[entry.Suspicions.Count];
        for (var index = 0; index < suspicions.Length; index++)
        {
            var suspicion = entry.Suspicions[index] ?? throw new ArgumentException("A suspicion is null.", nameof(entry));
            ArgumentException.ThrowIfNullOrEmpty(suspicion.BySiloId, nameof(entry));
            suspicions[index] = new Suspicion(suspicion.BySiloId, Normalize(suspicion.At));
        }

        return entry with
        {
            StartedAt = Normalize(entry.StartedAt),
            IAmAliveAt = Normalize(entry.IAmAliveAt),
            Suspicions = suspicions,
        };
    }

    /// <summary>The time in UTC, truncated to the microsecond.</summary>
    public static DateTimeOffset Normalize(DateTimeOffset time)
    {
        var ticks = time.UtcTicks;
        return new DateTimeOffset(ticks - (ticks % TicksPerMicrosecond), TimeSpan.Zero);
    }

    /// <summary>The later of two alive times: heartbeats race with updates, and an alive time never moves back.</summary>
    public static DateTimeOffset Later(DateTimeOffset stored, DateTimeOffset written) => written > stored ? written : stored;
}
