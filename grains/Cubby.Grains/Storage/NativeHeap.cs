using System.Runtime.InteropServices;

namespace Cubby.Grains.Storage;

/// <summary>
/// Gives the C heap's free pages back to the system. Native entry blocks come from <c>malloc</c>; under a full cache's
/// churn of values of many sizes, glibc keeps the pages freed between live blocks (it returns only the top of each
/// arena by itself), so RSS creeps up while the budget holds. <c>malloc_trim</c> releases every whole free page of
/// every arena. Without glibc (musl, other systems) it does nothing.
/// </summary>
internal static partial class NativeHeap
{
    private static volatile bool s_unavailable = !OperatingSystem.IsLinux();

    /// <summary>Releases free heap pages; false when this C library cannot (then it never tries again).</summary>
    public static bool TryTrim()
    {
        if (s_unavailable)
        {
            return false;
        }

        try
        {
            // malloc_trim's result says only whether any memory was released; either way it can be called again.
            _ = MallocTrim(0);
            return true;
        }
        catch (Exception exception) when (exception is EntryPointNotFoundException or DllNotFoundException)
        {
            s_unavailable = true;
            return false;
        }
    }

    [LibraryImport("libc", EntryPoint = "malloc_trim")]
    private static partial int MallocTrim(nuint pad);
}
