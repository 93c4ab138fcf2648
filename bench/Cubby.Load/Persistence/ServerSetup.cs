using System.Globalization;

namespace Cubby.Load.Persistence;

/// <summary>
/// One server configuration the <c>persistence</c> command starts: which server, and the command-line arguments that
/// keep its files (if any) in a given folder. A setup started again on the same folder is the same server restarted.
/// </summary>
internal sealed record ServerSetup(string Name, ServerKind Kind, Func<string, IReadOnlyList<string>> Arguments)
{
    /// <summary>A size no changes file reaches in a run, so a Cubby silo never begins a new one (never rolls).</summary>
    private const long NeverRoll = 16L * 1024 * 1024 * 1024;

    public static ServerSetup CubbyWithout { get; } = new("Cubby, no persistence", ServerKind.Cubby, static _ => []);

    public static ServerSetup RedisWithout { get; } = new("Redis, no persistence", ServerKind.Redis, static folder => ["--save", string.Empty, "--appendonly", "no", "--dir", folder]);

    public static ServerSetup RedisAppendOnly { get; } = new("Redis, appendonly everysec", ServerKind.Redis, static folder => ["--appendonly", "yes", "--appendfsync", "everysec", "--dir", folder]);

    /// <summary>Redis's AOF without its automatic rewrites: a restart replays every SET as a command.</summary>
    public static ServerSetup RedisAppendOnlyNoRewrite { get; } = new(
        "Redis, appendonly everysec, no rewrite",
        ServerKind.Redis,
        static folder => ["--appendonly", "yes", "--appendfsync", "everysec", "--auto-aof-rewrite-percentage", "0", "--dir", folder]);

    /// <summary>Redis started on a folder without its AOF: it loads <c>dump.rdb</c>, which a SAVE wrote.</summary>
    public static ServerSetup RedisSnapshot { get; } = new("Redis, dump.rdb", ServerKind.Redis, static folder => ["--save", string.Empty, "--appendonly", "no", "--dir", folder]);

    /// <summary>Cubby keeping its shards in the folder, flushing its changes file every <paramref name="flushInterval"/>.</summary>
    public static ServerSetup CubbyWith(TimeSpan flushInterval) => new(
        $"Cubby, persistence (FlushInterval {Seconds(flushInterval)})",
        ServerKind.Cubby,
        folder => ["--Cubby:Persistence:Directory", folder, "--Cubby:Persistence:FlushInterval", flushInterval.ToString("c", CultureInfo.InvariantCulture)]);

    /// <summary>
    /// Cubby keeping its shards in the folder with a changes file that is never begun again: no snapshot is written
    /// until the silo stops gracefully, so a silo killed and started again replays every change.
    /// </summary>
    public static ServerSetup CubbyWithNoRoll(TimeSpan flushInterval) => new(
        $"Cubby, persistence (FlushInterval {Seconds(flushInterval)}), no roll",
        ServerKind.Cubby,
        folder =>
        [
            "--Cubby:Persistence:Directory", folder, "--Cubby:Persistence:FlushInterval", flushInterval.ToString("c", CultureInfo.InvariantCulture),
            "--Cubby:Persistence:ChangesFileMinBytes", NeverRoll.ToString(CultureInfo.InvariantCulture),
        ]);

    private static string Seconds(TimeSpan interval) => string.Create(CultureInfo.InvariantCulture, $"{interval.TotalSeconds:0.###} s");
}
