using System.Globalization;
using System.IO.Compression;
using System.Xml.Linq;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Packaging;

/// <summary>
/// Cubby as a user gets it, without the repository: the solution packed into a folder feed, <c>cubby-server</c>
/// installed from it as a .NET tool and started with a settings file named by <c>--config</c>, and an app written into
/// a temporary folder that references the packed <c>Cubby.Client</c> (and nothing else of the repository) reading and
/// writing through it. Each run packs under a version of its own, so no package the machine's NuGet cache kept from an
/// earlier run stands in for the one just packed.
/// </summary>
[Collection(nameof(InstalledPackagesTests))]
[CollectionDefinition(nameof(InstalledPackagesTests), DisableParallelization = true)]
public sealed class InstalledPackagesTests(InstalledPackagesTests.PackedFeed packed) : IClassFixture<InstalledPackagesTests.PackedFeed>
{
    private const string Configuration =
#if DEBUG
        "Debug";
#else
        "Release";
#endif

    private static readonly string[] Packages =
    [
        "Cubby.Interfaces", "Cubby.Resp", "Cubby.Tls", "Cubby.Grains", "Cubby.Client", "Cubby.Client.MessagePack",
        "Cubby.Aspire.Client", "Cubby.Aspire.Hosting", "Cubby.Server",
    ];

    private static readonly TimeSpan CommandLimit = TimeSpan.FromMinutes(5);

    [Fact]
    public void Every_package_has_symbols_a_license_a_readme_and_the_repository()
    {
        foreach (var id in Packages)
        {
            AssertPackaged(packed.Feed, id, packed.Version);
        }

        AssertDependsOnlyOnPackages(packed.Feed, "Cubby.Client", packed.Version);
        AssertDependsOnlyOnPackages(packed.Feed, "Cubby.Aspire.Hosting", packed.Version);
    }

    [Fact]
    public async Task The_packed_server_tool_serves_an_app_built_on_the_packed_client()
    {
        var work = packed.Folder("server");
        var tools = Path.Combine(work, "tools");
        await RunAsync("dotnet", ["tool", "install", "Cubby.Server", "--tool-path", tools, "--add-source", packed.Feed, "--version", packed.Version], work);

        // The cluster id comes from the settings file alone: a server that ignored --config would refuse the app.
        var settings = Path.Combine(work, "cubby.json");
        await File.WriteAllTextAsync(settings, """{ "Cubby": { "ClusterId": "packaged" } }""");
        using var server = SiloProcess.Start(SiloProcess.FreePort(), SiloProcess.FreePort(), ["--config", settings], workingDirectory: work, executable: Path.Combine(tools, "cubby-server"));
        await server.WaitUntilReadyAsync(TimeSpan.FromSeconds(60));

        var app = WriteApp(work, "PackagedApp", packed.Feed, [("Cubby.Client", packed.Version), ("Microsoft.Extensions.Hosting", "10.0.5")], ClientProgram);
        var (exitCode, output) = await DotnetProcess.RunAsync(
            DotnetProcess.CommandStartInfo("dotnet", ["run", "--project", app, "-c", "Release", "--", "--Cubby:Client:Endpoints:0", server.Gateway, "--Cubby:Client:ClusterId", "packaged"], app),
            CommandLimit);

        Assert.True(exitCode == 0, $"The app exited with {exitCode}:\n{output}{server.Describe()}");
        Assert.Contains("read: hello from the packages", output, StringComparison.Ordinal);
        Assert.Contains("factory runs: 1, value: 42, 42", output, StringComparison.Ordinal);

        // What the app wrote is in the server, for any client to read.
        await using var resp = await RespTestClient.ConnectAsync(server.RespEndPoint);
        Assert.Equal("hello from the packages", (await resp.CallAsync("GET", "packaged:greeting")).AsString());
        Assert.Equal(0, await server.StopAsync(TimeSpan.FromSeconds(30)));
    }

    [Fact]
    public async Task A_project_on_the_packed_Aspire_hosting_gets_the_silo_program_and_the_postgres_script_in_its_output()
    {
        var work = packed.Folder("apphost");
        var app = WriteApp(work, "PackagedAppHost", packed.Feed, [("Cubby.Aspire.Hosting", packed.Version)], "Console.WriteLine(typeof(Aspire.Hosting.CubbyBuilderExtensions).Assembly.GetName().Name);");
        await RunAsync("dotnet", ["build", app, "-c", "Release", "-o", Path.Combine(work, "out")], app);

        var output = Path.Combine(work, "out");
        Assert.True(File.Exists(Path.Combine(output, "cubby-silo", "Cubby.Silo.dll")), $"No cubby-silo/Cubby.Silo.dll in {output}.");
        Assert.True(File.Exists(Path.Combine(output, "cubby-silo", "Cubby.Silo.runtimeconfig.json")));
        Assert.True(File.Exists(Path.Combine(output, "Postgres", "local-postgres.sh")));
    }

    private static async Task RunAsync(string command, string[] arguments, string workingDirectory)
    {
        var (exitCode, output) = await DotnetProcess.RunAsync(DotnetProcess.CommandStartInfo(command, arguments, workingDirectory), CommandLimit);
        Assert.True(exitCode == 0, $"{command} {string.Join(' ', arguments)} exited with {exitCode}:\n{output}");
        Assert.DoesNotContain(": warning ", output, StringComparison.Ordinal);
    }

    /// <summary>A package and its symbols package, with the metadata a feed shows: license, README, repository.</summary>
    private static void AssertPackaged(string feed, string id, string version)
    {
        var package = Path.Combine(feed, $"{id}.{version}.nupkg");
        Assert.True(File.Exists(package), $"{id} was not packed: {string.Join(", ", Directory.GetFiles(feed).Select(Path.GetFileName))}");
        Assert.True(File.Exists(Path.ChangeExtension(package, ".snupkg")), $"{id} has no symbols package.");

        using var zip = ZipFile.OpenRead(package);
        Assert.NotNull(zip.GetEntry("README.md"));
        var metadata = Nuspec(zip).Elements().Single(static element => element.Name.LocalName == "metadata");
        string? Value(string name) => metadata.Elements().SingleOrDefault(element => element.Name.LocalName == name)?.Value;
        Assert.Equal("MIT", Value("license"));
        Assert.Equal("README.md", Value("readme"));
        Assert.False(string.IsNullOrWhiteSpace(Value("description")), $"{id} has no description.");
        var repository = metadata.Elements().Single(static element => element.Name.LocalName == "repository");
        Assert.StartsWith("https://", repository.Attribute("url")?.Value, StringComparison.Ordinal);
    }

    /// <summary>A library's Cubby dependencies are packages of the same version; no project that is not one leaks in.</summary>
    private static void AssertDependsOnlyOnPackages(string feed, string id, string version)
    {
        using var zip = ZipFile.OpenRead(Path.Combine(feed, $"{id}.{version}.nupkg"));
        var dependencies = Nuspec(zip).Descendants().Where(static element => element.Name.LocalName == "dependency").ToList();
        Assert.NotEmpty(dependencies);
        foreach (var dependency in dependencies.Where(static dependency => dependency.Attribute("id")!.Value.StartsWith("Cubby.", StringComparison.Ordinal)))
        {
            Assert.Contains(dependency.Attribute("id")!.Value, Packages);
            Assert.Equal(version, dependency.Attribute("version")!.Value);
        }
    }

    private static XElement Nuspec(ZipArchive zip)
    {
        var entry = zip.Entries.Single(static entry => entry.FullName.EndsWith(".nuspec", StringComparison.Ordinal));
        using var stream = entry.Open();
        return XDocument.Load(stream).Root!;
    }

    private const string ClientProgram = """
        using Cubby.Client;
        using Microsoft.Extensions.Caching.Distributed;
        using Microsoft.Extensions.DependencyInjection;
        using Microsoft.Extensions.Hosting;

        var builder = Host.CreateApplicationBuilder(args);
        builder.Services.AddCubbyClient().AddCubbyDistributedCache();
        using var host = builder.Build();
        await host.StartAsync();

        var cache = host.Services.GetRequiredService<IDistributedCache>();
        await cache.SetStringAsync("packaged:greeting", "hello from the packages");
        Console.WriteLine("read: " + await cache.GetStringAsync("packaged:greeting"));

        var client = host.Services.GetRequiredService<ICubbyClient>();
        var runs = 0;
        ValueTask<int> Compute(CancellationToken _) { Interlocked.Increment(ref runs); return ValueTask.FromResult(42); }
        var first = await client.GetOrCreateAsync("packaged:answer", Compute);
        var second = await client.GetOrCreateAsync("packaged:answer", Compute);
        Console.WriteLine($"factory runs: {runs}, value: {first}, {second}");
        await host.StopAsync();
        """;

    /// <summary>A console project in a folder of its own: the packed Cubby packages from the folder feed, the rest from NuGet.</summary>
    private static string WriteApp(string work, string name, string feed, (string Id, string Version)[] references, string program)
    {
        var app = Path.Combine(work, name);
        Directory.CreateDirectory(app);
        File.WriteAllText(Path.Combine(app, "nuget.config"), $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <add key="cubby" value="{feed}" />
              </packageSources>
            </configuration>
            """);
        var packageReferences = string.Join("\n", references.Select(static reference => $"""    <PackageReference Include="{reference.Id}" Version="{reference.Version}" />"""));
        File.WriteAllText(Path.Combine(app, name + ".csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <OutputType>Exe</OutputType>
                <TargetFramework>net10.0</TargetFramework>
                <Nullable>enable</Nullable>
                <ImplicitUsings>enable</ImplicitUsings>
              </PropertyGroup>
              <ItemGroup>
            {packageReferences}
              </ItemGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(app, "Program.cs"), program);
        return app;
    }

    /// <summary>Drops this run's packages from the machine's NuGet cache, where restores and the tool install put them.</summary>
    private static void ForgetPackages(string version)
    {
        var cache = Environment.GetEnvironmentVariable("NUGET_PACKAGES")
            ?? Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".nuget", "packages");
        foreach (var id in Packages)
        {
            var folder = Path.Combine(cache, id.ToLower(CultureInfo.InvariantCulture), version);
            if (Directory.Exists(folder))
            {
                Directory.Delete(folder, recursive: true);
            }
        }
    }

    /// <summary>
    /// The solution packed once for the class, from the outputs the test run built, under a version of this run's own;
    /// removed, with what restores and installs put in the machine's NuGet cache, at the end.
    /// </summary>
    public sealed class PackedFeed : IAsyncLifetime
    {
        private readonly DirectoryInfo _work = Directory.CreateTempSubdirectory("cubby-packages-");

        public string Version { get; } = $"0.0.1-test.{Guid.NewGuid():N}";

        public string Feed => Path.Combine(_work.FullName, "feed");

        /// <summary>A new folder for one test's files.</summary>
        public string Folder(string name) => Directory.CreateDirectory(Path.Combine(_work.FullName, name)).FullName;

        public Task InitializeAsync() =>
            RunAsync("dotnet", ["pack", Path.Combine(Repository.Root, "Cubby.slnx"), "-c", Configuration, "--no-build", "-o", Feed, $"-p:PackageVersion={Version}"], Repository.Root);

        public Task DisposeAsync()
        {
            _work.Delete(recursive: true);
            ForgetPackages(Version);
            return Task.CompletedTask;
        }
    }
}
