namespace Cubby.Load;

/// <summary>The executables a run uses, found or installed by <see cref="Prerequisites"/>.</summary>
/// <remarks>Gnuplot: Null when gnuplot could not be installed: the run goes on without the plot.</remarks>
internal sealed record ToolSet(
    string Dotnet,
    string Silo,
    string RedisServer,
    string RedisBenchmark,
    string Garnet,
    string? Gnuplot,
    string RedisVersion,
    string GarnetVersion);
