using Cubby.Aspire.Hosting.Postgres;

namespace Cubby.AppHost.Tests;

/// <summary>Finding PostgreSQL's server binaries for <c>AddLocalPostgres</c>, and the error when there are none.</summary>
public sealed class PostgresBinariesTests : IDisposable
{
    private readonly string _root = Directory.CreateTempSubdirectory("cubby-pg-root-").FullName;

    [Fact]
    public void Without_server_binaries_the_error_names_the_folder_and_the_Debian_package()
    {
        Directory.CreateDirectory(Path.Combine(_root, "15", "bin"));
        var error = Assert.Throws<InvalidOperationException>(() => PostgresBinaries.Find(_root));
        Assert.Contains($"{_root}/*/bin", error.Message, StringComparison.Ordinal);
        Assert.Contains("apt-get install postgresql", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_newest_major_version_with_postgres_and_initdb_is_taken()
    {
        foreach (var (major, programs) in new[] { ("9", new[] { "postgres", "initdb" }), ("16", ["postgres", "initdb"]), ("17", ["psql"]) })
        {
            var bin = Directory.CreateDirectory(Path.Combine(_root, major, "bin")).FullName;
            foreach (var program in programs)
            {
                File.WriteAllText(Path.Combine(bin, program), "");
            }
        }

        Assert.Equal(Path.Combine(_root, "16", "bin"), PostgresBinaries.Find(_root));
    }

    public void Dispose() => Directory.Delete(_root, recursive: true);
}
