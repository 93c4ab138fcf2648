namespace Cubby.Silo.Cluster.Membership;

/// <summary>Where a silo is in its life, as recorded in the membership table. Stored as its number.</summary>
internal enum SiloStatus
{
    /// <summary>Registered, not yet serving; owns no slots.</summary>
    Joining = 1,

    /// <summary>Serving and part of the view.</summary>
    Active = 2,

    /// <summary>Leaving gracefully: handing its slots off.</summary>
    ShuttingDown = 3,

    /// <summary>Gone, by its own shutdown or declared dead by its peers; a silo that reads this about itself stops serving.</summary>
    Dead = 4,
}
