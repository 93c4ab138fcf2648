using Cubby.Silo.Commands;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Cluster.Routing;

/// <summary>This silo's own keys: its part of KEYS, DBSIZE and FLUSHALL.</summary>
internal static class LocalKeyspace
{
    public static List<byte[]> Keys(SiloRuntime silo, byte[]? pattern)
    {
        var keys = new List<byte[]>();
        var sink = new MatchingKeys(pattern, keys);
        var catalog = silo.Catalog;
        for (var slot = 0; slot < catalog.SlotCount; slot++)
        {
            catalog.Find(slot)?.VisitKeys(ref sink);
        }

        return keys;
    }

    public static void Flush(SiloRuntime silo)
    {
        var catalog = silo.Catalog;
        for (var slot = 0; slot < catalog.SlotCount; slot++)
        {
            catalog.Find(slot)?.Clear();
        }
    }
}
