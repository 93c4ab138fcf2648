using System.Reflection;
using Aspire.Hosting;

namespace Cubby.Aspire.Hosting;

/// <summary>
/// The Cubby silo executable's project, which each silo resource runs with <c>dotnet run</c>; built with this library
/// (its path is recorded at build time), so the AppHost does not build it again for every silo.
/// </summary>
internal sealed class CubbySiloProject : IProjectMetadata
{
    public string ProjectPath { get; } = typeof(CubbySiloProject).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>()
        .Single(static attribute => attribute.Key == nameof(CubbySiloProject)).Value!;

    public bool SuppressBuild => true;
}
