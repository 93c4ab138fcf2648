namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// How silos agree that a peer is dead: each silo that misses enough probes adds a vote (a <see cref="Suspicion"/>)
/// to the peer's row, and the vote that brings the fresh votes of distinct silos to the quorum also marks it Dead,
/// in the same compare-and-set write.
/// </summary>
internal static class DeathVotes
{
    /// <summary>Statuses of silos that serve, probe and vote: the ones failure detection watches.</summary>
    public static bool IsLive(SiloStatus status) => status is SiloStatus.Active or SiloStatus.ShuttingDown;

    /// <summary>
    /// The suspect's row with <paramref name="voterId"/>'s vote added (and Dead when that reaches the quorum), or null
    /// when there is nothing to write: the suspect is no longer live, the voter is not live itself, or the voter's
    /// own recent vote already stands and the quorum is not reached. Votes older than the expiration are dropped.
    /// </summary>
    public static MembershipEntry? Cast(MembershipSnapshot snapshot, MembershipEntry suspect, string voterId, DateTimeOffset now, ClusteringOptions options)
    {
        var voter = snapshot.Entries.FirstOrDefault(row => row.Entry.SiloId == voterId)?.Entry;
        if (!IsLive(suspect.Status) || voter is null || !IsLive(voter.Status))
        {
            return null;
        }

        var ownPrevious = suspect.Suspicions.LastOrDefault(vote => vote.BySiloId == voterId);
        var votes = suspect.Suspicions.Where(vote => vote.BySiloId != voterId && now - vote.At < options.VoteExpiration).ToList();
        votes.Add(new Suspicion(voterId, now));
        var dead = votes.Select(vote => vote.BySiloId).Distinct(StringComparer.Ordinal).Count() >= Quorum(snapshot, suspect.SiloId, options);

        // Re-voting while the vote stands would only bump the table version (and wake every silo) each probe interval.
        if (!dead && ownPrevious is not null && now - ownPrevious.At < options.VoteExpiration / 2)
        {
            return null;
        }

        return suspect with { Suspicions = votes, Status = dead ? SiloStatus.Dead : suspect.Status };
    }

    /// <summary>
    /// Votes that declare <paramref name="suspectId"/> dead: <see cref="ClusteringOptions.VotesForDeath"/>, or all the
    /// live silos but the suspect when fewer are left (so the last survivor of two can declare the other alone).
    /// </summary>
    public static int Quorum(MembershipSnapshot snapshot, string suspectId, ClusteringOptions options)
    {
        var voters = snapshot.Entries.Count(row => row.Entry.SiloId != suspectId && IsLive(row.Entry.Status));
        return Math.Max(1, Math.Min(options.VotesForDeath, voters));
    }
}
