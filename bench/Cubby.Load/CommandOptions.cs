namespace Cubby.Load;

/// <summary>Reads the <c>--name value</c> pairs of a command such as <c>alloc</c> or <c>cluster</c>.</summary>
internal static class CommandOptions
{
    /// <summary>
    /// Hands each pair's value to the setter of its name in <paramref name="setters"/>; for a name it has none for, prints
    /// that name and <paramref name="usage"/> and returns false.
    /// </summary>
    public static async Task<bool> ReadAsync(IReadOnlyList<string> args, string usage, IReadOnlyDictionary<string, Action<string>> setters)
    {
        for (var i = 0; i + 1 < args.Count; i += 2)
        {
            if (!setters.TryGetValue(args[i], out var set))
            {
                await Console.Error.WriteLineAsync($"unknown option {args[i]}\n\n{usage}").ConfigureAwait(false);
                return false;
            }

            set(args[i + 1]);
        }

        return true;
    }

    /// <summary>A comma-separated list of counts, such as <c>1,64</c>.</summary>
    public static int[] Counts(string value) => [.. value.Split(',').Select(static count => int.Parse(count, System.Globalization.CultureInfo.InvariantCulture))];
}
