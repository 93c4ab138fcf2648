using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Text;
using Npgsql;

namespace Cubby.Tests.Infrastructure;

/// <summary>
/// A PostgreSQL database for tests: the one named by <c>CUBBY_TEST_POSTGRES</c> (a connection string) if set, else a
/// throwaway server started from the machine's binaries (<c>/usr/lib/postgresql/*/bin</c>) in a temporary folder, on a
/// free loopback port, stopped and deleted at the end. Without either the tests fail: they never skip. Tests share the
/// database, so each uses cluster ids (or schemas) of its own.
/// </summary>
public sealed partial class PostgresServer : IAsyncLifetime
{
    public const string EnvironmentVariable = "CUBBY_TEST_POSTGRES";

    private const string BinariesRoot = "/usr/lib/postgresql";
    private const string OsUser = "postgres";
    private const string Role = "cubby";
    private static readonly TimeSpan CommandTimeout = TimeSpan.FromSeconds(60);

    private static readonly string NotInstalled =
        $"PostgreSQL is needed by these tests and none was found. Set {EnvironmentVariable} to a connection string " +
        "(Host=...;Port=...;Username=...;Password=...;Database=...) of a database the tests may create tables and schemas in, " +
        $"or install PostgreSQL's server binaries (apt-get install postgresql; tests/run.sh does it) so the tests start a " +
        $"throwaway server from {BinariesRoot}/*/bin.";

    private string? _connectionString;
    private string? _root;
    private string? _binaries;
    private bool _started;

    /// <summary>A connection string for a database (and role) the tests own.</summary>
    public string ConnectionString => _connectionString ?? throw new InvalidOperationException("The PostgreSQL server has not started.");

    /// <summary>The connection string with <c>search_path</c> set to <paramref name="schema"/>.</summary>
    public string ConnectionStringFor(string schema) =>
        new NpgsqlConnectionStringBuilder(ConnectionString) { SearchPath = schema }.ConnectionString;

    public async Task InitializeAsync()
    {
        var external = Environment.GetEnvironmentVariable(EnvironmentVariable);
        if (!string.IsNullOrWhiteSpace(external))
        {
            await EnsureReachableAsync(external, $"the database named by {EnvironmentVariable}");
            _connectionString = external;
            return;
        }

        _binaries = FindBinaries() ?? throw new InvalidOperationException(NotInstalled);
        await StartThrowawayServerAsync();
    }

    public async Task DisposeAsync()
    {
        NpgsqlConnection.ClearAllPools();
        try
        {
            if (_started)
            {
                // Nothing here is worth a clean shutdown; the folder is deleted next.
                await RunAsync(asServerUser: true, Tool("pg_ctl"), "-D", Path.Combine(_root!, "data"), "-m", "immediate", "-w", "stop");
            }
        }
        finally
        {
            if (_root is not null && Directory.Exists(_root))
            {
                Directory.Delete(_root, recursive: true);
            }
        }
    }

    /// <summary>Runs <paramref name="sql"/> (no parameters) against the test database.</summary>
    public async Task ExecuteAsync(string sql)
    {
        await using var connection = new NpgsqlConnection(ConnectionString);
        await connection.OpenAsync();
        await using var command = new NpgsqlCommand(sql, connection);
        await command.ExecuteNonQueryAsync();
    }

    private async Task StartThrowawayServerAsync()
    {
        // As root the folder must be reachable by the postgres user, which a TMPDIR under /root may not be.
        _root = IsRoot ? Path.Combine("/tmp", $"cubby-pg-{Guid.NewGuid():N}") : Path.Combine(Path.GetTempPath(), $"cubby-pg-{Guid.NewGuid():N}");
        var data = Path.Combine(_root, "data");
        var sockets = Path.Combine(_root, "sock");
        var passwordFile = Path.Combine(_root, "superuser-password");
        var superuserPassword = Guid.NewGuid().ToString("N");
        Directory.CreateDirectory(_root);
        Directory.CreateDirectory(data);
        Directory.CreateDirectory(sockets);
        await File.WriteAllTextAsync(passwordFile, superuserPassword);
        if (IsRoot)
        {
            // initdb and postgres refuse to run as root: the server runs as the postgres user and owns its folder.
            await RunAsync(asServerUser: false, "chown", "-R", $"{OsUser}:{OsUser}", _root);
        }

        await RunAsync(asServerUser: true, Tool("initdb"), "-D", data, "-U", "postgres", "--pwfile", passwordFile, "--auth=scram-sha-256",
            "-E", "UTF8", "--no-locale", "--no-sync");
        File.Delete(passwordFile);

        var port = await StartOnFreePortAsync(data, sockets);
        _started = true;

        var superuser = new NpgsqlConnectionStringBuilder
        {
            Host = "127.0.0.1",
            Port = port,
            Username = "postgres",
            Password = superuserPassword,
            Database = "postgres",
            Pooling = false,
        };
        await using (var connection = new NpgsqlConnection(superuser.ConnectionString))
        {
            await connection.OpenAsync();
            await using var createRole = new NpgsqlCommand($"CREATE ROLE {Role} LOGIN PASSWORD '{Role}'", connection);
            await createRole.ExecuteNonQueryAsync();
            await using var createDatabase = new NpgsqlCommand($"CREATE DATABASE {Role} OWNER {Role}", connection);
            await createDatabase.ExecuteNonQueryAsync();
        }

        _connectionString = new NpgsqlConnectionStringBuilder
        {
            Host = "127.0.0.1",
            Port = port,
            Username = Role,
            Password = Role,
            Database = Role,
        }.ConnectionString;
    }

    /// <summary>Starts the server on a free port, trying others if someone takes the port between choosing and binding it.</summary>
    private async Task<int> StartOnFreePortAsync(string data, string sockets)
    {
        const int Attempts = 3;
        var log = Path.Combine(_root!, "server.log");
        for (var attempt = 1; ; attempt++)
        {
            var port = SiloProcess.FreePort();
            // A silo process holds about 15 connections (three held 46 idle, 50 under writes); a rolling restart runs
            // four or five at once beside the client, close to PostgreSQL's default of 100 slots.
            var options = $"-p {port} -c listen_addresses=127.0.0.1 -k \"{sockets}\" -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400";
            var (exitCode, output) = await TryRunAsync(asServerUser: true, Tool("pg_ctl"), "-D", data, "-l", log, "-w", "-t", "30", "-o", options, "start");
            if (exitCode == 0)
            {
                return port;
            }

            var serverLog = File.Exists(log) ? await File.ReadAllTextAsync(log) : "";
            if (attempt >= Attempts || !serverLog.Contains("could not bind", StringComparison.OrdinalIgnoreCase))
            {
                throw new InvalidOperationException($"pg_ctl start failed with exit code {exitCode}:\n{output}\n--- server log ---\n{serverLog}");
            }
        }
    }

    private static async Task EnsureReachableAsync(string connectionString, string what)
    {
        try
        {
            await using var connection = new NpgsqlConnection(connectionString);
            await connection.OpenAsync();
        }
        catch (Exception exception) when (exception is NpgsqlException or ArgumentException)
        {
            throw new InvalidOperationException($"Could not connect to {what}: {exception.Message}", exception);
        }
    }

    /// <summary>The bin folder of the newest PostgreSQL installed the Debian way, or null.</summary>
    private static string? FindBinaries()
    {
        if (!Directory.Exists(BinariesRoot))
        {
            return null;
        }

        return Directory.EnumerateDirectories(BinariesRoot)
            .Select(version => Path.Combine(version, "bin"))
            .Where(bin => File.Exists(Path.Combine(bin, "initdb")) && File.Exists(Path.Combine(bin, "pg_ctl")))
            .OrderByDescending(bin => int.TryParse(Path.GetFileName(Path.GetDirectoryName(bin)), out var major) ? major : 0)
            .FirstOrDefault();
    }

    private string Tool(string name) => Path.Combine(_binaries!, name);

    private async Task RunAsync(bool asServerUser, string fileName, params string[] arguments)
    {
        var (exitCode, output) = await TryRunAsync(asServerUser, fileName, arguments);
        if (exitCode != 0)
        {
            throw new InvalidOperationException($"{Path.GetFileName(fileName)} failed with exit code {exitCode}:\n{output}");
        }
    }

    /// <summary>Runs a program; <paramref name="asServerUser"/> runs it as the postgres user when this process is root.</summary>
    private async Task<(int ExitCode, string Output)> TryRunAsync(bool asServerUser, string fileName, params string[] arguments)
    {
        var start = new ProcessStartInfo
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = _root ?? Path.GetTempPath(),
        };
        if (asServerUser && IsRoot)
        {
            start.FileName = File.Exists("/usr/sbin/runuser") ? "/usr/sbin/runuser" : "runuser";
            foreach (var argument in (string[])["-u", OsUser, "--", fileName])
            {
                start.ArgumentList.Add(argument);
            }
        }
        else
        {
            start.FileName = fileName;
        }

        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {fileName}.");
        var output = new StringBuilder();
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(CommandTimeout);
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new InvalidOperationException($"{Path.GetFileName(fileName)} did not finish within {CommandTimeout.TotalSeconds:0}s.");
        }

        output.Append(await stdout).Append(await stderr);
        return (process.ExitCode, output.ToString());
    }

    private static bool IsRoot => GetEffectiveUserId() == 0;

    [LibraryImport("libc", EntryPoint = "geteuid")]
    private static partial uint GetEffectiveUserId();
}
