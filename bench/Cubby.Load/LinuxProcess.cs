using System.Globalization;
using System.Runtime.InteropServices;

namespace Cubby.Load;

/// <summary>What Linux reports about a process in /proc: resident memory and CPU time.</summary>
internal static partial class LinuxProcess
{
    private const int ClockTicksPerSecondName = 2; // _SC_CLK_TCK

    private static readonly double ClockTicksPerSecond = Math.Max(1, SystemConfiguration(ClockTicksPerSecondName));

    public static bool IsRoot => EffectiveUserId() == 0;

    /// <summary>VmRSS from /proc/PID/status, in bytes; 0 when the process is gone.</summary>
    public static long ResidentBytes(int processId)
    {
        try
        {
            foreach (var line in File.ReadLines($"/proc/{processId}/status"))
            {
                if (line.StartsWith("VmRSS:", StringComparison.Ordinal))
                {
                    return long.Parse(line.AsSpan(6).Trim().TrimEnd("kB").Trim(), CultureInfo.InvariantCulture) * 1024;
                }
            }
        }
        catch (IOException)
        {
        }

        return 0;
    }

    /// <summary>User plus system CPU time from /proc/PID/stat (utime + stime), in seconds.</summary>
    public static double CpuSeconds(int processId) => StatSeconds(processId, 14, 15);

    /// <summary>
    /// User plus system CPU time of the children the process has waited for, from /proc/PID/stat (cutime + cstime), in
    /// seconds: a fork that did part of the server's work (Redis's AOF rewrite, BGSAVE), once the server has reaped it.
    /// </summary>
    public static double ChildrenCpuSeconds(int processId) => StatSeconds(processId, 16, 17);

    /// <summary>
    /// The bytes the process, and the children it has waited for, caused to be written to storage (write_bytes of
    /// /proc/PID/io); 0 when the process is gone or the file cannot be read.
    /// </summary>
    public static long StorageWrittenBytes(int processId)
    {
        try
        {
            foreach (var line in File.ReadLines($"/proc/{processId}/io"))
            {
                if (line.StartsWith("write_bytes:", StringComparison.Ordinal))
                {
                    return long.Parse(line.AsSpan(12).Trim(), CultureInfo.InvariantCulture);
                }
            }
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
        }

        return 0;
    }

    /// <summary>The sum of two clock-tick fields of /proc/PID/stat (numbered from 1, as proc(5) does), in seconds.</summary>
    private static double StatSeconds(int processId, int firstField, int secondField)
    {
        string stat;
        try
        {
            stat = File.ReadAllText($"/proc/{processId}/stat");
        }
        catch (IOException)
        {
            return 0;
        }

        // The command name (field 2) is in parentheses and may hold spaces; the fields after it start at field 3.
        var fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        var first = long.Parse(fields[firstField - 3], CultureInfo.InvariantCulture);
        var second = long.Parse(fields[secondField - 3], CultureInfo.InvariantCulture);
        return (first + second) / ClockTicksPerSecond;
    }

    /// <summary>The 1-, 5- and 15-minute load averages, as /proc/loadavg prints them.</summary>
    public static string LoadAverage()
    {
        try
        {
            return string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3));
        }
        catch (IOException)
        {
            return "unknown";
        }
    }

    /// <summary>The CPU model from /proc/cpuinfo.</summary>
    public static string CpuModel()
    {
        try
        {
            var line = File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal));
            return line is null ? "unknown" : line[(line.IndexOf(':', StringComparison.Ordinal) + 1)..].Trim();
        }
        catch (IOException)
        {
            return "unknown";
        }
    }

    [LibraryImport("libc", EntryPoint = "geteuid")]
    private static partial uint EffectiveUserId();

    [LibraryImport("libc", EntryPoint = "sysconf")]
    private static partial long SystemConfiguration(int name);
}
