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
    public static Func<IEntryStore> Factory(StoreKind kind) => kind switch
    {
        StoreKind.Native => static () => new NativeEntryStore(),
        _ => static () => new ManagedEntryStore(),
    };
}
