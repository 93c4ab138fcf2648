using System.Runtime.InteropServices;

namespace Cubby.Grains.Storage;

/// <summary>Gives the system back the physical memory behind a range of pages while keeping the range mapped.</summary>
internal static partial class SystemPages
{
    private const int DontNeed = 4;

    private static volatile bool s_unavailable = !OperatingSystem.IsLinux();

    /// <summary>
    /// Drops the contents of <paramref name="bytes"/> (a whole number of pages) at <paramref name="address"/>: the next
    /// touch faults in zeroed pages. Elsewhere than Linux the memory stays resident and is reused as it is.
    /// </summary>
    public static unsafe void Discard(void* address, nuint bytes)
    {
        if (s_unavailable)
        {
            return;
        }

        try
        {
            _ = MAdvise(address, bytes, DontNeed);
        }
        catch (Exception exception) when (exception is EntryPointNotFoundException or DllNotFoundException)
        {
            s_unavailable = true;
        }
    }

    [LibraryImport("libc", EntryPoint = "madvise")]
    private static unsafe partial int MAdvise(void* address, nuint length, int advice);
}
