namespace Cubby.Grains.Expiry;

/// <summary>Sampled entries with an expiry, and how many of them had expired.</summary>
internal readonly record struct SampleTally(int Expired, int WithExpiry)
{
    /// <summary>A sample more than this share expired is followed by another, on the same shard or the next.</summary>
    public const double RepeatThreshold = 0.10;

    /// <summary>Whether enough of the sample had expired that more of it likely has.</summary>
    public bool MuchExpired => WithExpiry > 0 && Expired > WithExpiry * RepeatThreshold;

    public static SampleTally operator +(SampleTally left, SampleTally right) => new(left.Expired + right.Expired, left.WithExpiry + right.WithExpiry);
}
