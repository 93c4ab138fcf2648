using System.Globalization;

namespace Cubby.AppHost.Tests;

/// <summary>The processes an AppHost started, read from <c>/proc</c>: what must be gone once it stops.</summary>
internal static class ProcessTree
{
    /// <summary>Every live descendant of <paramref name="root"/> (not the root itself).</summary>
    public static IReadOnlyList<int> DescendantsOf(int root)
    {
        var children = new Dictionary<int, List<int>>();
        foreach (var pid in LiveProcessIds())
        {
            if (ParentOf(pid) is { } parent)
            {
                (children.TryGetValue(parent, out var list) ? list : children[parent] = []).Add(pid);
            }
        }

        var found = new List<int>();
        var pending = new Stack<int>([root]);
        while (pending.TryPop(out var pid))
        {
            foreach (var child in children.GetValueOrDefault(pid) ?? [])
            {
                found.Add(child);
                pending.Push(child);
            }
        }

        return found;
    }

    /// <summary>Every live process whose environment has <paramref name="name"/>=<paramref name="value"/>.</summary>
    public static IReadOnlyList<int> WithEnvironment(string name, string value)
    {
        var wanted = $"{name}={value}";
        return LiveProcessIds().Where(pid => IsAlive(pid) && EnvironmentOf(pid).Contains(wanted)).ToArray();
    }

    /// <summary>Whether <paramref name="pid"/> is a live process (a zombie waiting for its parent counts as gone).</summary>
    public static bool IsAlive(int pid) => Stat(pid) is { } stat && StateOf(stat) != 'Z';

    /// <summary>The command line of <paramref name="pid"/>, arguments joined by spaces, or empty when it is gone.</summary>
    public static string CommandLineOf(int pid)
    {
        try
        {
            return File.ReadAllText($"/proc/{pid}/cmdline").Replace('\0', ' ').Trim();
        }
        catch (IOException)
        {
            return "";
        }
    }

    private static string[] EnvironmentOf(int pid)
    {
        try
        {
            return File.ReadAllText($"/proc/{pid}/environ").Split('\0');
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }

    private static IEnumerable<int> LiveProcessIds() =>
        Directory.EnumerateDirectories("/proc")
            .Select(static path => int.TryParse(Path.GetFileName(path), NumberStyles.None, CultureInfo.InvariantCulture, out var pid) ? pid : 0)
            .Where(static pid => pid > 0);

    private static int? ParentOf(int pid) =>
        Stat(pid) is { } stat && int.TryParse(AfterName(stat).Split(' ')[2], NumberStyles.None, CultureInfo.InvariantCulture, out var parent) ? parent : null;

    private static char StateOf(string stat) => AfterName(stat)[1];

    // The name in parentheses may hold spaces; the fields after it are fixed: " S ppid ...".
    private static string AfterName(string stat) => stat[(stat.LastIndexOf(')') + 1)..];

    private static string? Stat(int pid)
    {
        try
        {
            return File.ReadAllText($"/proc/{pid}/stat");
        }
        catch (IOException)
        {
            return null;
        }
    }
}
