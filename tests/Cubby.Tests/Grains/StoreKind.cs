using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

/// <summary>The entry stores a grain can run on.</summary>
public enum StoreKind
{
    Native,
    Managed,
}

internal static class StoreKinds
{
    /// <summary>A slack no free slots reach, so no page is emptied: only <see cref="SparsePageTests"/> tests emptying.</summary>
    private const long NeverEmptied = long.MaxValue;

    /// <summary>Stores of <paramref name="kind"/> that share their blocks, as a silo's do, and never empty a page.</summary>
    public static EntryStores Factory(StoreKind kind) => kind switch
    {
        StoreKind.Native => EntryStores.Native(0, NeverEmptied),
        _ => EntryStores.Managed(0, NeverEmptied),
    };

    public static EntryMemory Memory(StoreKind kind) => kind == StoreKind.Native ? new NativeEntryMemory() : new ManagedEntryMemory();
}
