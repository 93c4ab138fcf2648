using System.Diagnostics;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>
/// A silo that cannot start says why in one line and exits 1: a port another process listens on (Orleans' own
/// listeners would have shared it without an error), or a setting that is not valid. It never aborts on an unhandled
/// exception, and the silo already on the port goes on serving.
/// </summary>
public sealed class StartFailureTests
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);

    [Theory]
    [InlineData("Cubby:RespPort")]
    [InlineData("Cubby:HttpPort")]
    [InlineData("Cubby:Clustering:SiloPort")]
    [InlineData("Cubby:Clustering:GatewayPort")]
    public async Task A_silo_whose_port_another_process_listens_on_exits_1_naming_the_setting(string setting)
    {
        using var first = await SiloProcess.StartAsync();
        var taken = setting switch
        {
            "Cubby:RespPort" => first.RespPort,
            "Cubby:HttpPort" => first.HttpPort,
            "Cubby:Clustering:SiloPort" => first.SiloPort,
            _ => first.GatewayPort,
        };
        int Port(string name) => name == setting ? taken : SiloProcess.FreePort();

        using var second = SiloProcess.Start(
            Port("Cubby:RespPort"), Port("Cubby:HttpPort"), [], Port("Cubby:Clustering:SiloPort"), Port("Cubby:Clustering:GatewayPort"));
        await Poll.UntilAsync(() => second.HasExited, Deadline, $"the second silo to exit{second.Describe()}");

        Assert.Equal(1, await second.StopAsync(TimeSpan.FromSeconds(5)));
        Assert.Contains($"The Cubby silo could not start: {setting} {taken} is in use: another process listens on 127.0.0.1:{taken}.", second.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("Unhandled exception", second.Output, StringComparison.Ordinal);

        await using var client = await RespTestClient.ConnectAsync(first.RespEndPoint);
        Assert.Equal("PONG", (await client.CallAsync("PING")).AsString());
        Assert.False(first.HasExited);
    }

    [Fact]
    public async Task A_silo_whose_database_cannot_be_reached_exits_1_naming_the_connection_string()
    {
        using var silo = SiloProcess.Start(SiloProcess.FreePort(), SiloProcess.FreePort(),
            ["--Cubby:Clustering:Mode", "Postgres", "--Cubby:Clustering:ConnectionString", UnreachableDatabase()]);
        await Poll.UntilAsync(() => silo.HasExited, Deadline, $"the silo to exit{silo.Describe()}");

        Assert.Equal(1, await silo.StopAsync(TimeSpan.FromSeconds(5)));
        Assert.Contains("The Cubby silo could not start: Cubby:Clustering:ConnectionString: cannot apply Cubby's schema to the database: Failed to connect to 127.0.0.1:", silo.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Migrate_against_a_database_that_cannot_be_reached_exits_1_naming_the_connection_string()
    {
        using var migrate = Process.Start(DotnetProcess.StartInfo(SiloProcess.SiloAssemblyPath, ["migrate", "--Cubby:Clustering:ConnectionString", UnreachableDatabase()]))!;
        var errors = migrate.StandardError.ReadToEndAsync();
        var output = migrate.StandardOutput.ReadToEndAsync();
        using var deadline = new CancellationTokenSource(Deadline);
        await migrate.WaitForExitAsync(deadline.Token);

        Assert.Equal(1, migrate.ExitCode);
        Assert.StartsWith("Cubby:Clustering:ConnectionString: cannot apply Cubby's schema to the database: Failed to connect to 127.0.0.1:", await errors, StringComparison.Ordinal);
        Assert.DoesNotContain("schema is up to date", await output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_silo_whose_config_file_is_not_there_exits_1_naming_the_file()
    {
        var missing = Path.Combine(Path.GetTempPath(), $"cubby-missing-{Guid.NewGuid():N}.json");
        using var silo = SiloProcess.Start(SiloProcess.FreePort(), SiloProcess.FreePort(), ["--config", missing]);
        await Poll.UntilAsync(() => silo.HasExited, Deadline, $"the silo to exit{silo.Describe()}");

        Assert.Equal(1, await silo.StopAsync(TimeSpan.FromSeconds(5)));
        Assert.Contains($"The Cubby silo could not start: --config names {missing}, which is not there.", silo.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_silo_with_a_setting_out_of_range_exits_1_with_the_validation_message_alone()
    {
        using var silo = SiloProcess.Start(SiloProcess.FreePort(), SiloProcess.FreePort(), ["--Cubby:MaxArguments", "2"]);
        await Poll.UntilAsync(() => silo.HasExited, Deadline, $"the silo to exit{silo.Describe()}");

        Assert.Equal(1, await silo.StopAsync(TimeSpan.FromSeconds(5)));
        Assert.Contains("The Cubby silo could not start: Cubby:MaxArguments must be at least 3 (was 2).", silo.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("Unhandled exception", silo.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", silo.Output, StringComparison.Ordinal);
    }

    // A port nothing listens on: the connection is refused at once.
    private static string UnreachableDatabase() =>
        $"Host=127.0.0.1;Port={SiloProcess.FreePort()};Database=cubby;Username=cubby;Password=cubby;Timeout=5";
}
