using System.CommandLine;

namespace Cubby.AppHost;

/// <summary>The command line: options, their validation, and running the model the caller describes.</summary>
internal static class AppHostCommand
{
    private const int MaxSilos = 9;

    public static Task<int> RunAsync(string[] args, Action<DevEnvironmentBuilder> describe)
    {
        var silos = new Option<int>("--silos") { Description = $"How many silos to start (1 to {MaxSilos}).", DefaultValueFactory = _ => 3 };
        silos.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<int>() is < 1 or > MaxSilos)
            {
                result.AddError($"--silos must be from 1 to {MaxSilos}.");
            }
        });
        var postgres = new Option<string?>("--postgres")
        {
            Description = "Connection string (Npgsql) of an existing PostgreSQL for membership; default: ConnectionStrings__postgres, else a throwaway server.",
            DefaultValueFactory = _ => Environment.GetEnvironmentVariable("ConnectionStrings__postgres"),
        };
        var noPostgres = new Option<bool>("--no-postgres") { Description = "Use Development clustering (the first silo keeps the membership table) even when PostgreSQL is installed." };
        var temp = new Option<DirectoryInfo>("--temp")
        {
            Description = "Folder the throwaway PostgreSQL's folder is made in.",
            DefaultValueFactory = _ => new DirectoryInfo(DefaultTempRoot()),
        };
        temp.AcceptExistingOnly();
        var startTimeout = Seconds("--start-timeout", "Seconds each resource may take to become healthy.", 120);
        var stopTimeout = Seconds("--stop-timeout", "Seconds each resource may take to exit when stopped, before it is killed.", 60);

        var command = new RootCommand("Cubby's dev environment: PostgreSQL, silos and the sample web app, started in order and stopped with Ctrl+C.")
        {
            silos, postgres, noPostgres, temp, startTimeout, stopTimeout,
        };
        command.Validators.Add(result =>
        {
            if (result.GetValue(noPostgres) && !string.IsNullOrWhiteSpace(result.GetValue(postgres)))
            {
                result.AddError("--no-postgres and a PostgreSQL connection string (--postgres or ConnectionStrings__postgres) exclude each other.");
            }
        });
        command.SetAction(async (parse, _) =>
        {
            var options = new AppHostOptions(
                parse.GetValue(silos),
                parse.GetValue(postgres) is { Length: > 0 } connectionString ? connectionString : null,
                parse.GetValue(noPostgres),
                parse.GetRequiredValue(temp).FullName,
                TimeSpan.FromSeconds(parse.GetValue(startTimeout)),
                TimeSpan.FromSeconds(parse.GetValue(stopTimeout)));
            var builder = new DevEnvironmentBuilder(options, new ConsoleOutput(Console.Out, ConsoleOutput.ColourWanted()));
            describe(builder);
            return await builder.Build().RunAsync().ConfigureAwait(false);
        });

        // The environment handles SIGINT and SIGTERM itself, to stop its resources in order.
        return command.Parse(args).InvokeAsync(new InvocationConfiguration { ProcessTerminationTimeout = null });
    }

    private static Option<int> Seconds(string name, string description, int defaultValue)
    {
        var option = new Option<int>(name) { Description = description, DefaultValueFactory = _ => defaultValue };
        option.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<int>() is < 1 or > 3600)
            {
                result.AddError($"{name} must be from 1 to 3600 seconds.");
            }
        });
        return option;
    }

    // As root the throwaway server runs as the postgres user, who must reach its folder: a TMPDIR under /root may not do.
    private static string DefaultTempRoot() => Processes.UnixProcess.IsRoot ? "/tmp" : Path.GetTempPath();
}
