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
    public static EntryStores Factory(StoreKind kind) => kind switch
    {
        StoreKind.Native => new EntryStores(static () => new NativeEntryStore()),
        _ => new EntryStores(static () => new ManagedEntryStore()),
    };
}
