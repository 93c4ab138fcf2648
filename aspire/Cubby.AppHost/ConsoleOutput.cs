namespace Cubby.AppHost;

/// <summary>
/// The AppHost's console: every line prefixed with the resource it comes from, in that resource's colour, unless
/// the output is redirected or <c>NO_COLOR</c> is set. Lines from several processes never interleave mid-line.
/// </summary>
internal sealed class ConsoleOutput(TextWriter writer, bool colour)
{
    public const string AppHostName = "apphost";

    private const string Reset = "\e[0m";
    private const string Alarm = "\e[1;31m";
    private static readonly string[] Palette = ["\e[36m", "\e[32m", "\e[33m", "\e[35m", "\e[34m", "\e[96m", "\e[92m", "\e[93m", "\e[95m", "\e[94m"];

    private readonly Lock _lock = new();
    private readonly Dictionary<string, string> _colours = new(StringComparer.Ordinal) { [AppHostName] = "\e[1m" };
    private int _prefixWidth = AppHostName.Length;

    /// <summary>Colour only for a terminal, and never when the user asked for none (https://no-color.org).</summary>
    public static bool ColourWanted() => !Console.IsOutputRedirected && string.IsNullOrEmpty(Environment.GetEnvironmentVariable("NO_COLOR"));

    /// <summary>Gives a resource its colour and widens the prefix column to fit its name.</summary>
    public void Register(string resource)
    {
        lock (_lock)
        {
            _colours.TryAdd(resource, Palette[(_colours.Count - 1) % Palette.Length]);
            _prefixWidth = Math.Max(_prefixWidth, resource.Length);
        }
    }

    /// <summary>A line a resource wrote.</summary>
    public void Line(string resource, string text) => Write(resource, null, text);

    /// <summary>A line from the AppHost itself.</summary>
    public void Info(string text) => Line(AppHostName, text);

    /// <summary>Something went wrong that the user must see: a resource exited on its own, or had to be killed.</summary>
    public void Error(string text) => Write(AppHostName, Alarm, $"!!! {text}");

    private void Write(string resource, string? style, string text)
    {
        lock (_lock)
        {
            style ??= _colours.GetValueOrDefault(resource, "");
            var prefix = resource.PadRight(_prefixWidth);
            writer.WriteLine(colour && style.Length > 0 ? $"{style}{prefix} |{Reset} {text}" : $"{prefix} | {text}");
            writer.Flush();
        }
    }
}
