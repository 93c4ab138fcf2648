using Orleans;

namespace Cubby.Sharding;

/// <summary>
/// A place in the order of what a silo tells one near cache: just after invalidation <see cref="Number"/> on its link
/// (<see cref="INearCacheReader.Invalidated"/>), then the writes of the near cache's own client answered there, counted
/// by <see cref="Own"/> (0 for the invalidation itself). What a near cache keeps is replaced only by what stands later.
/// </summary>
/// <param name="Number">The last invalidation sent on the link before this place.</param>
/// <param name="Own">How many of the client's own writes the link had answered, this one counted; 0 for none.</param>
[GenerateSerializer, Immutable]
[Alias("cubby.near-cache-position")]
public readonly record struct NearCachePosition([property: Id(0)] long Number, [property: Id(1)] long Own) : IComparable<NearCachePosition>
{
    /// <inheritdoc/>
    public int CompareTo(NearCachePosition other) => Number != other.Number ? Number.CompareTo(other.Number) : Own.CompareTo(other.Own);

    /// <summary>Whether <paramref name="left"/> stands before <paramref name="right"/>.</summary>
    public static bool operator <(NearCachePosition left, NearCachePosition right) => left.CompareTo(right) < 0;

    /// <summary>Whether <paramref name="left"/> stands after <paramref name="right"/>.</summary>
    public static bool operator >(NearCachePosition left, NearCachePosition right) => left.CompareTo(right) > 0;

    /// <summary>Whether <paramref name="left"/> stands before <paramref name="right"/> or is it.</summary>
    public static bool operator <=(NearCachePosition left, NearCachePosition right) => left.CompareTo(right) <= 0;

    /// <summary>Whether <paramref name="left"/> stands after <paramref name="right"/> or is it.</summary>
    public static bool operator >=(NearCachePosition left, NearCachePosition right) => left.CompareTo(right) >= 0;
}
