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
    private static volatile bool s_usageUnavailable = !OperatingSystem.IsLinux();

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

    /// <summary>
    /// What the C heap holds, over every arena: the bytes handed out and not yet freed (<paramref name="allocated"/>),
    /// and the freed bytes it keeps (<paramref name="retained"/>); false when this C library cannot tell.
    /// </summary>
    public static bool TryReadUsage(out long allocated, out long retained)
    {
        allocated = retained = 0;
        if (s_usageUnavailable)
        {
            return false;
        }

        try
        {
            var info = MallInfo2();
            allocated = (long)(info.Uordblks + info.Hblkhd);
            retained = (long)info.Fordblks;
            return true;
        }
        catch (Exception exception) when (exception is EntryPointNotFoundException or DllNotFoundException)
        {
            // glibc before 2.33 has no mallinfo2; never ask again.
            s_usageUnavailable = true;
            return false;
        }
    }

    [LibraryImport("libc", EntryPoint = "mallinfo2")]
    private static partial MallocInfo MallInfo2();

    [LibraryImport("libc", EntryPoint = "malloc_trim")]
    private static partial int MallocTrim(nuint pad);

    /// <summary>glibc's <c>struct mallinfo2</c>: every field a <c>size_t</c>.</summary>
    [StructLayout(LayoutKind.Sequential)]
    private readonly struct MallocInfo
    {
        public readonly nuint Arena;
        public readonly nuint Ordblks;
        public readonly nuint Smblks;
        public readonly nuint Hblks;
        public readonly nuint Hblkhd;
        public readonly nuint Usmblks;
        public readonly nuint Fsmblks;
        public readonly nuint Uordblks;
        public readonly nuint Fordblks;
        public readonly nuint Keepcost;
    }
}
