using System.Runtime;
using Cubby.Grains;
using Cubby.Grains.Commands;
using Cubby.Grains.Reports;
using Cubby.Resp;
using Cubby.Silo.Protocol;
using Cubby.Text;

namespace Cubby.Silo.Commands;

/// <summary>MEMORY PURGE | HELP: give the memory the silo holds free back to the system, as Redis's MEMORY PURGE does for its allocator.</summary>
internal static class MemoryCommand
{
    private static readonly string[] Help =
    [
        "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "PURGE",
        "    Return the free memory of the C heap and of a compacted GC heap, and the blocks kept for reuse, to the system.",
        "HELP",
        "    Print this help.",
    ];

    public static void Memory(ClientSession session, RespRequest request)
    {
        var subcommand = request[1];
        var writer = session.Writer;
        if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "HELP"))
        {
            writer.WriteSimpleStringArray(Help);
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "PURGE"))
        {
            if (Arguments.CheckArity(session.Context, request, 2, "memory|purge"))
            {
                // Blocks the silo for one full compacting collection, as Redis's purge blocks it for the allocator's.
                // The blocks kept for reuse go first: they sit among freed ones and would keep whole regions of the
                // pinned heap, and pages of the C heap, from going back.
                session.Silo.Figures.ReleaseKeptBlocks();
                GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
                GC.Collect(GC.MaxGeneration, GCCollectionMode.Aggressive, blocking: true, compacting: true);
                ShardFigures.TrimNativeHeap();
                writer.WriteOk();
            }
        }
        else
        {
            writer.WriteError(RedisErrors.UnknownSubcommand(subcommand, "MEMORY"));
        }
    }
}
