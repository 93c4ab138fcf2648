using Cubby.Silo.Clustering.Postgres;
using Cubby.Silo.Hosting;

var migrate = args is ["migrate", ..];
try
{
    var (configFile, rest) = ConfigFileArgument.Take(migrate ? args[1..] : args);
    return migrate ? await MigrateAsync(configFile, rest).ConfigureAwait(false) : await ServeAsync(configFile, rest).ConfigureAwait(false);
}
catch (Exception exception)
{
    // migrate is not a silo starting: its failure is the cause alone.
    await Console.Error.WriteLineAsync(migrate ? StartFailure.Cause(exception) : StartFailure.Describe(exception)).ConfigureAwait(false);
    return StartFailure.ExitCode;
}

static async Task<int> ServeAsync(string? configFile, string[] args)
{
    // The silo's own directory, not the working directory, is its content root: its appsettings.json is found wherever
    // it is started from, and the configuration's change watcher watches that directory only. Started from / (as a
    // service is), the working directory as root had the watcher follow the whole file system: 46,511 inotify watches,
    // and a thread busy with every file written anywhere.
    var builder = WebApplication.CreateSlimBuilder(new WebApplicationOptions { Args = args, ContentRootPath = AppContext.BaseDirectory });
    if (configFile is not null)
    {
        ConfigFileArgument.AddTo(builder.Configuration, configFile);
    }

    builder.AddServiceDefaults();
    builder.AddCubbySilo();
    var app = builder.Build();
    app.MapCubbySilo();

    // MapCubbySilo serves /health (every check, the silo's and the defaults' alike); the defaults add /alive.
    app.MapAliveEndpoint();
    await app.RunAsync().ConfigureAwait(false);
    return 0;
}

// Applies Cubby's PostgreSQL schema for Orleans' clustering and reminders and exits, for operators who run silos with a
// role that cannot create tables.
static async Task<int> MigrateAsync(string? configFile, string[] args)
{
    var configurationBuilder = new ConfigurationBuilder().SetBasePath(AppContext.BaseDirectory).AddJsonFile("appsettings.json", optional: true);
    if (configFile is not null)
    {
        ConfigFileArgument.AddTo(configurationBuilder, configFile);
    }

    var configuration = configurationBuilder.AddEnvironmentVariables().AddCommandLine(args).Build();
    var connectionString = configuration["Cubby:Clustering:ConnectionString"];
    if (string.IsNullOrWhiteSpace(connectionString))
    {
        await Console.Error.WriteLineAsync("migrate needs Cubby:Clustering:ConnectionString (e.g. --Cubby:Clustering:ConnectionString \"Host=...;Database=...\").").ConfigureAwait(false);
        return 2;
    }

    await PostgresSchema.ApplyAsync(connectionString, CancellationToken.None).ConfigureAwait(false);
    Console.WriteLine("The Orleans clustering and reminders schema is up to date.");
    return 0;
}
