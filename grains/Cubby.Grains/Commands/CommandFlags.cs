namespace Cubby.Grains.Commands;

/// <summary>The sets of Redis command flags COMMAND reports, for the commands on keys.</summary>
internal static class CommandFlags
{
    public static readonly string[] Read = ["readonly", "fast"];
    public static readonly string[] Write = ["write", "denyoom", "fast"];
    public static readonly string[] WriteSlow = ["write"];
    public static readonly string[] WriteNoFast = ["write", "denyoom"];
    public static readonly string[] WriteFastNoOom = ["write", "fast"];
    public static readonly string[] ReadSlow = ["readonly"];
}
