namespace Cubby.Silo.Hosting;

/// <summary>
/// Has .NET's socket engine run socket completions on its own event threads instead of posting each to the thread
/// pool: the other half of <see cref="SiloOptions.InlineScheduling"/>, which runs commands where their bytes arrive.
/// Without it every read woke a pool thread that first spun in the pool's semaphore (<c>sched_yield</c>): GET at 64
/// connections cost 27.7 µs of silo CPU an operation, and 18–20 µs with it (bench/results/2026-11-26-vm-profile-get-c64.md).
/// The runtime reads it from the environment once, when the first socket is made, so it is set while the host is built,
/// before any listener exists, and it applies to the whole process. An operator's own value is kept.
/// </summary>
internal static class InlineSocketCompletions
{
    public const string Variable = "DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS";

    public static void Enable()
    {
        if (Environment.GetEnvironmentVariable(Variable) is null)
        {
            Environment.SetEnvironmentVariable(Variable, "1");
        }
    }
}
