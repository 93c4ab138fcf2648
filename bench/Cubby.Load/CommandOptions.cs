namespace Cubby.Load;

/// <summary>Reads the <c>--name value</c> pairs and <c>--flag</c>s of a command such as <c>alloc</c> or <c>cluster</c>.</summary>
internal static class CommandOptions
{
    /// <summary>
    /// Hands each option's value to the setter of its name in <paramref name="setters"/> (an empty value for a name in
    /// <paramref name="flags"/>, which takes none); for a name it has no setter for, or a value that is missing, prints
    /// the problem and <paramref name="usage"/> and returns false.
    /// </summary>
    public static async Task<bool> ReadAsync(IReadOnlyList<string> args, string usage, IReadOnlyDictionary<string, Action<string>> setters, IReadOnlyCollection<string>? flags = null)
    {
        for (var i = 0; i < args.Count; i++)
        {
            var name = args[i];
            if (!setters.TryGetValue(name, out var set))
            {
                await Console.Error.WriteLineAsync($"unknown option {name}\n\n{usage}").ConfigureAwait(false);
                return false;
            }

            if (flags?.Contains(name) == true)
            {
                set(string.Empty);
            }
            else if (i + 1 < args.Count)
            {
                set(args[++i]);
            }
            else
            {
                await Console.Error.WriteLineAsync($"option {name} needs a value\n\n{usage}").ConfigureAwait(false);
                return false;
            }
        }

        return true;
    }

    /// <summary>A comma-separated list of counts, such as <c>1,64</c>.</summary>
    public static int[] Counts(string value) => [.. value.Split(',').Select(static count => int.Parse(count, System.Globalization.CultureInfo.InvariantCulture))];
}
