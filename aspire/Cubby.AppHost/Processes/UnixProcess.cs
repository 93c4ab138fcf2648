using System.Runtime.InteropServices;

namespace Cubby.AppHost.Processes;

/// <summary>The few POSIX calls .NET does not wrap: signals and who we run as.</summary>
internal static partial class UnixProcess
{
    public const int SigInt = 2;
    public const int SigTerm = 15;
    private const int NoSuchProcess = 3;

    public static bool IsRoot => GetEffectiveUserId() == 0;

    /// <summary>Sends <paramref name="signal"/>; false when the process is already gone.</summary>
    public static bool Signal(int processId, int signal)
    {
        if (Kill(processId, signal) == 0)
        {
            return true;
        }

        var error = Marshal.GetLastPInvokeError();
        return error == NoSuchProcess
            ? false
            : throw new InvalidOperationException($"kill({processId}, {signal}) failed with errno {error}.");
    }

    [LibraryImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static partial int Kill(int processId, int signal);

    [LibraryImport("libc", EntryPoint = "geteuid")]
    private static partial uint GetEffectiveUserId();
}
