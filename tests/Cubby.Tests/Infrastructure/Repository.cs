namespace Cubby.Tests.Infrastructure;

/// <summary>The checkout the tests were built from.</summary>
internal static class Repository
{
    /// <summary>The folder holding <c>Cubby.slnx</c>, found above the tests' own directory.</summary>
    public static string Root { get; } = Find();

    private static string Find()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "Cubby.slnx")))
            {
                return directory.FullName;
            }
        }

        throw new DirectoryNotFoundException($"No Cubby.slnx above {AppContext.BaseDirectory}.");
    }
}
