namespace Cubby.Client;

/// <summary>What a removal did.</summary>
public enum RemoveOutcome
{
    /// <summary>There was no such entry.</summary>
    NotFound = 0,

    /// <summary>The entry was removed.</summary>
    Removed = 1,
}
