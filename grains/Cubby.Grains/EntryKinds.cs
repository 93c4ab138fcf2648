using Cubby.Sharding;

namespace Cubby.Grains;

/// <summary>The names Redis's TYPE answers and SCAN ... TYPE takes.</summary>
internal static class EntryKinds
{
    public static string NameOf(EntryKind kind) => kind == EntryKind.Hash ? "hash" : "string";

    /// <summary>The kind named <paramref name="name"/>; false for a Redis type Cubby does not store (list, set, ...).</summary>
    public static bool TryParse(string name, out EntryKind kind)
    {
        kind = name.Equals("hash", StringComparison.OrdinalIgnoreCase) ? EntryKind.Hash : EntryKind.String;
        return kind == EntryKind.Hash || name.Equals("string", StringComparison.OrdinalIgnoreCase);
    }
}
