using System.Diagnostics;
using System.Security.Cryptography;
using Cubby.AppHost.Processes;
using Npgsql;

namespace Cubby.AppHost.Resources.Postgres;

/// <summary>
/// A PostgreSQL server of this run's own: initdb in a folder under the temp root, the server on a free loopback port
/// (no Unix socket), run as the postgres user when the AppHost is root (PostgreSQL refuses root). It is stopped with
/// a fast shutdown and its folder deleted when the run ends.
/// </summary>
internal sealed class ThrowawayPostgres : PostgresResource
{
    private const string ServerUser = "postgres";
    private const string Role = "cubby";
    private static readonly TimeSpan ToolTimeout = TimeSpan.FromSeconds(60);

    private readonly string _binaries;
    private readonly string _password = Convert.ToHexString(RandomNumberGenerator.GetBytes(16));
    private readonly int _port = FreePort.Next();
    private ChildProcess? _server;

    public ThrowawayPostgres(string name, string binaries, DevContext context)
        : base(name, context)
    {
        _binaries = binaries;
        Folder = Path.Combine(context.Options.TempRoot, $"cubby-apphost-{context.RunId}");
        ConnectionString = new NpgsqlConnectionStringBuilder { Host = "127.0.0.1", Port = _port, Username = Role, Password = _password, Database = "postgres" }.ConnectionString;
    }

    /// <summary>The server's folder (data directory inside), deleted when it stops.</summary>
    public string Folder { get; }

    public override string ConnectionString { get; }

    public override Task<int> Exited => _server?.Exited ?? throw new InvalidOperationException($"{Name} has not been launched.");

    public override IReadOnlyList<int> ProcessIds => _server is null ? [] : [_server.Id];

    private static string? UserToRunAs => UnixProcess.IsRoot ? ServerUser : null;

    public override async Task LaunchAsync(CancellationToken cancellationToken)
    {
        var data = Path.Combine(Folder, "data");
        var passwordFile = Path.Combine(Folder, "password");
        Directory.CreateDirectory(Folder);
        await File.WriteAllTextAsync(passwordFile, _password, cancellationToken).ConfigureAwait(false);
        if (UserToRunAs is { } user)
        {
            await RunToEndAsync("chown", ["-R", $"{user}:{user}", Folder], null, cancellationToken).ConfigureAwait(false);
        }

        await RunToEndAsync(Path.Combine(_binaries, "initdb"),
            ["-D", data, "-U", Role, "--pwfile", passwordFile, "--auth=scram-sha-256", "-E", "UTF8", "--no-locale", "--no-sync"],
            UserToRunAs, cancellationToken).ConfigureAwait(false);
        File.Delete(passwordFile);

        // Durability is worth nothing in a folder deleted at the end of the run.
        _server = ChildProcess.Start(Name, Context.Output, Path.Combine(_binaries, "postgres"),
            ["-D", data, "-p", $"{_port}", "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
             "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
            new Dictionary<string, string>(), Folder, UserToRunAs);
    }

    /// <summary>SIGINT is PostgreSQL's fast shutdown: sessions are ended, nothing is waited for. Then the folder goes.</summary>
    public override async Task StopAsync(CancellationToken force)
    {
        if (_server is not null)
        {
            var code = await _server.StopAsync(UnixProcess.SigInt, Context.Options.StopTimeout, force).ConfigureAwait(false);
            if (code is null)
            {
                Context.Output.Error($"{Name} (pid {_server.Id}) did not exit within {Context.Options.StopTimeout.TotalSeconds:0} s of SIGINT; killed it.");
            }
            else
            {
                Context.Output.Info($"{Name} exited with code {code}.");
            }

            _server.Dispose();
        }

        NpgsqlConnection.ClearAllPools();
        if (Directory.Exists(Folder))
        {
            Directory.Delete(Folder, recursive: true);
            Context.Output.Info($"Deleted {Folder}.");
        }
    }

    public override string Describe() =>
        $"pid={string.Join(',', ProcessIds)} url=postgresql://{Role}:{_password}@127.0.0.1:{_port}/postgres folder={Folder}";

    private async Task RunToEndAsync(string program, IEnumerable<string> arguments, string? userName, CancellationToken cancellationToken)
    {
        var start = new ProcessStartInfo(program, arguments)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = Folder,
        };
        if (userName is not null)
        {
            start.UserName = userName;
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {program}.");
        var output = process.StandardOutput.ReadToEndAsync(cancellationToken);
        var errors = process.StandardError.ReadToEndAsync(cancellationToken);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(ToolTimeout);
        try
        {
            await process.WaitForExitAsync(timeout.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw;
        }

        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"{Path.GetFileName(program)} failed with exit code {process.ExitCode}:\n{await output.ConfigureAwait(false)}{await errors.ConfigureAwait(false)}");
        }
    }
}
