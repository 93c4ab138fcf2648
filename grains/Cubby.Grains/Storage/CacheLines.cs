using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics.X86;

namespace Cubby.Grains.Storage;

/// <summary>
/// Asks the processor to start loading memory that is about to be read, so that the cache misses of several lookups
/// overlap instead of following one another. A prefetch is only a hint: it never faults, even on an address that is
/// no longer valid, so a stale address (an object the collector moved since) costs nothing but the wasted load.
/// </summary>
internal static unsafe class CacheLines
{
    private const int LineBytes = 64;

    /// <summary>Starts loading the first two cache lines of <paramref name="instance"/>.</summary>
    public static void Prefetch<T>(T instance)
        where T : class
    {
        if (Sse.IsSupported)
        {
            var address = Unsafe.As<T, nint>(ref instance);
            Sse.Prefetch0((void*)address);
            Sse.Prefetch0((void*)(address + LineBytes));
        }
    }

    /// <summary>Starts loading the cache line at <paramref name="address"/>, and the next when <paramref name="lines"/> is 2.</summary>
    public static void Prefetch(void* address, int lines = 1)
    {
        if (Sse.IsSupported)
        {
            Sse.Prefetch0(address);
            if (lines > 1)
            {
                Sse.Prefetch0((byte*)address + LineBytes);
            }
        }
    }
}
