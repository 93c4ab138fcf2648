using System.Globalization;
using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>What a client asks to learn it talks to one standalone Redis 7 primary: TIME, CLUSTER, INFO replication, CONFIG GET.</summary>
public sealed class StandaloneServerTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    [Fact]
    public async Task Time_answers_unix_seconds_and_the_microseconds_within_the_second()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var before = DateTimeOffset.UtcNow.ToUnixTimeSeconds();

        var time = RespAssert.Strings(await c.CallAsync("TIME"));

        Assert.Equal(2, time.Length);
        var seconds = long.Parse(time[0], CultureInfo.InvariantCulture);
        Assert.InRange(seconds, before, DateTimeOffset.UtcNow.ToUnixTimeSeconds());
        Assert.InRange(long.Parse(time[1], CultureInfo.InvariantCulture), 0, 999_999);
        RespAssert.Error("ERR wrong number of arguments for 'time' command", await c.CallAsync("TIME", "now"));
    }

    [Theory]
    [InlineData("INFO")]
    [InlineData("NODES")]
    [InlineData("SLOTS")]
    public async Task Cluster_commands_are_refused_as_by_a_server_without_cluster_support(string subcommand)
    {
        await using var c = await fixture.Silo.ConnectAsync();

        RespAssert.Error("ERR This instance has cluster support disabled", await c.CallAsync("CLUSTER", subcommand));
    }

    [Fact]
    public async Task Function_flush_has_nothing_to_remove_and_other_function_commands_are_refused()
    {
        await using var c = await fixture.Silo.ConnectAsync();

        RespAssert.Ok(await c.CallAsync("FUNCTION", "FLUSH"));
        RespAssert.Ok(await c.CallAsync("FUNCTION", "FLUSH", "ASYNC"));
        RespAssert.Error("ERR syntax error", await c.CallAsync("FUNCTION", "FLUSH", "LATER"));
        RespAssert.Error("ERR Cubby runs no functions: FUNCTION LOAD is not supported", await c.CallAsync("FUNCTION", "load", "code"));
    }

    [Fact]
    public async Task Info_replication_reports_a_primary_without_replicas()
    {
        await using var c = await fixture.Silo.ConnectAsync();

        var fields = Fields((await c.CallAsync("INFO", "replication")).AsString()!);

        Assert.Equal("master", fields["role"]);
        Assert.Equal("0", fields["connected_slaves"]);
        Assert.Equal("0", fields["master_repl_offset"]);
        Assert.Matches("^[0-9a-f]{40}$", fields["master_replid"]);
        Assert.DoesNotContain("keyspace_hits", fields.Keys);
    }

    [Theory]
    [InlineData("databases", "1")]
    [InlineData("replica-read-only", "yes")]
    [InlineData("cluster-enabled", "no")]
    public async Task Config_get_answers_what_a_standalone_server_with_one_database_does(string parameter, string value)
    {
        await using var c = await fixture.Silo.ConnectAsync();

        Assert.Equal([parameter, value], RespAssert.Strings(await c.CallAsync("CONFIG", "GET", parameter)));
    }

    private static Dictionary<string, string> Fields(string info) =>
        info.Split("\r\n", StringSplitOptions.RemoveEmptyEntries)
            .Where(static line => !line.StartsWith('#'))
            .Select(static line => line.Split(':', 2))
            .ToDictionary(static parts => parts[0], static parts => parts[1]);
}
