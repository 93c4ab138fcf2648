namespace Cubby.Aspire.Hosting.Postgres;

/// <summary>Where Debian's PostgreSQL server binaries are: <c>/usr/lib/postgresql/{major}/bin</c>, the newest major first.</summary>
internal static class PostgresBinaries
{
    public const string Root = "/usr/lib/postgresql";

    /// <summary>The newest installed major version's <c>bin</c> folder under <paramref name="root"/>.</summary>
    /// <exception cref="InvalidOperationException">No server binaries are installed; the message names the Debian package.</exception>
    public static string Find(string root = Root)
    {
        var found = Directory.Exists(root)
            ? Directory.GetDirectories(root)
                .Select(static folder => Path.Combine(folder, "bin"))
                .Where(static bin => File.Exists(Path.Combine(bin, "postgres")) && File.Exists(Path.Combine(bin, "initdb")))
                .OrderByDescending(static bin => int.TryParse(Path.GetFileName(Path.GetDirectoryName(bin)), System.Globalization.CultureInfo.InvariantCulture, out var major) ? major : 0)
                .FirstOrDefault()
            : null;
        return found ?? throw new InvalidOperationException(
            $"No PostgreSQL server binaries under {root}/*/bin (postgres, initdb): install Debian's postgresql package (apt-get install postgresql), or give the AppHost an existing server as ConnectionStrings:postgres.");
    }
}
