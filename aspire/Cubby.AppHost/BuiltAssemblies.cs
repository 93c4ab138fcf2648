using System.Reflection;

namespace Cubby.AppHost;

/// <summary>Where the projects the AppHost references were built, recorded in its assembly at build time.</summary>
internal static class BuiltAssemblies
{
    public static string Silo => PathOf("Cubby.Silo");

    public static string SampleWeb => PathOf("Cubby.SampleWeb");

    private static string PathOf(string assemblyName)
    {
        var path = typeof(BuiltAssemblies).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>()
            .SingleOrDefault(attribute => attribute.Key == assemblyName)?.Value
            ?? throw new InvalidOperationException($"The AppHost was built without a reference to {assemblyName}.");
        return File.Exists(path)
            ? path
            : throw new InvalidOperationException($"{assemblyName} is not built at {path}; build the AppHost (dotnet build aspire/Cubby.AppHost) with the same configuration.");
    }
}
