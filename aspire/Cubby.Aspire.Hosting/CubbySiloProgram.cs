using Aspire.Hosting;

namespace Cubby.Aspire.Hosting;

/// <summary>
/// The Cubby silo program each silo resource runs with <c>dotnet</c>: built with this library and copied beside it
/// under <c>cubby-silo/</c> (by the project reference in this repository, by the package's build targets in an AppHost
/// that installs it), so every silo runs the silo of the library's own version and no silo builds anything.
/// </summary>
internal static class CubbySiloProgram
{
    public static string Directory { get; } = Path.Combine(AppContext.BaseDirectory, "cubby-silo");

    public static string AssemblyPath { get; } = Path.Combine(Directory, "Cubby.Silo.dll");

    /// <summary>Stops the AppHost at start, naming the file, when the program is not where it should be.</summary>
    public static void EnsureExists()
    {
        if (!File.Exists(AssemblyPath))
        {
            throw new DistributedApplicationException(
                $"The Cubby silo program is not at {AssemblyPath}: the AppHost's build copies it there from Cubby.Aspire.Hosting; build the AppHost again.");
        }
    }
}
