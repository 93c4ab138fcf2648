using System.Globalization;
using System.Net.Sockets;
using Cubby.Tests.Infrastructure;
using static Cubby.Tests.Silo.RedisTools;

namespace Cubby.Tests.Silo;

public sealed class RedisCliTests(SiloProcessFixture fixture) : IClassFixture<SiloProcessFixture>
{
    private int Port => fixture.Silo.RespPort;

    [Fact]
    public async Task Set_get_incr_and_mget_print_what_redis_prints()
    {
        Assert.Equal("PONG\n", await CliOutputAsync(Port, "ping"));
        Assert.Equal("OK\n", await CliOutputAsync(Port, "set", "cli:k", "v"));
        Assert.Equal("v\n", await CliOutputAsync(Port, "get", "cli:k"));
        Assert.Equal("OK\n", await CliOutputAsync(Port, "set", "cli:spaced", "hello world"));
        Assert.Equal("hello world\n", await CliOutputAsync(Port, "get", "cli:spaced"));
        Assert.Equal("\n", await CliOutputAsync(Port, "get", "cli:missing"));
        Assert.Equal("1\n", await CliOutputAsync(Port, "incr", "cli:n"));
        Assert.Equal("42\n", await CliOutputAsync(Port, "incrby", "cli:n", "41"));
        Assert.Equal("OK\n", await CliOutputAsync(Port, "mset", "cli:a", "1", "cli:b", "2"));
        Assert.Equal("1\n2\n\n", await CliOutputAsync(Port, "mget", "cli:a", "cli:b", "cli:missing"));
        Assert.Equal("2\n", await CliOutputAsync(Port, "del", "cli:a", "cli:b", "cli:missing"));
        Assert.Equal("string\n", await CliOutputAsync(Port, "type", "cli:k"));
    }

    [Fact]
    public async Task Pexpire_and_pttl_report_the_time_to_live()
    {
        Assert.Equal("OK\n", await CliOutputAsync(Port, "set", "ttl:k", "v"));
        Assert.Equal("-1\n", await CliOutputAsync(Port, "pttl", "ttl:k"));
        Assert.Equal("1\n", await CliOutputAsync(Port, "pexpire", "ttl:k", "60000"));

        var pttl = long.Parse(await CliOutputAsync(Port, "pttl", "ttl:k"), CultureInfo.InvariantCulture);
        Assert.InRange(pttl, 1, 60000);
        var ttl = long.Parse(await CliOutputAsync(Port, "ttl", "ttl:k"), CultureInfo.InvariantCulture);
        Assert.InRange(ttl, 1, 60);
        Assert.Equal("-2\n", await CliOutputAsync(Port, "pttl", "ttl:missing"));
        Assert.Equal("0\n", await CliOutputAsync(Port, "pexpire", "ttl:missing", "1000"));
        Assert.Equal("1\n", await CliOutputAsync(Port, "persist", "ttl:k"));
        Assert.Equal("-1\n", await CliOutputAsync(Port, "pttl", "ttl:k"));
        Assert.Equal("OK\n", await CliOutputAsync(Port, "set", "ttl:px", "v", "px", "30000"));
        Assert.InRange(long.Parse(await CliOutputAsync(Port, "pttl", "ttl:px"), CultureInfo.InvariantCulture), 1, 30000);
    }

    [Fact]
    public async Task Scan_lists_every_key_once()
    {
        var keys = Enumerable.Range(0, 150).Select(i => $"scan:{i}").ToArray();
        Assert.Equal("OK\n", await CliOutputAsync(Port, ["mset", .. keys.SelectMany(key => new[] { key, "x" })]));

        var scanned = (await CliOutputAsync(Port, "--scan", "--pattern", "scan:*")).Split('\n', StringSplitOptions.RemoveEmptyEntries);

        Assert.Equal(keys.Order(StringComparer.Ordinal), scanned.Order(StringComparer.Ordinal));
        var matched = (await CliOutputAsync(Port, "--scan", "--pattern", "scan:1?")).Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(Enumerable.Range(10, 10).Select(i => $"scan:{i}"), matched.Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task No_raw_output_is_formatted_as_redis_formats_it()
    {
        Assert.Equal("OK\n", await CliOutputAsync(Port, "--no-raw", "mset", "fmt:a", "1", "fmt:b", "two words"));
        Assert.Equal("\"two words\"\n", await CliOutputAsync(Port, "--no-raw", "get", "fmt:b"));
        Assert.Equal("(nil)\n", await CliOutputAsync(Port, "--no-raw", "get", "fmt:missing"));
        Assert.Equal("(integer) 2\n", await CliOutputAsync(Port, "--no-raw", "incr", "fmt:a"));
        Assert.Equal("1) \"2\"\n2) \"two words\"\n3) (nil)\n", await CliOutputAsync(Port, "--no-raw", "mget", "fmt:a", "fmt:b", "fmt:missing"));

        var (_, output, _) = await CliAsync(Port, "--no-raw", "incr", "fmt:b");
        Assert.Equal("(error) ERR value is not an integer or out of range\n", output);
    }

    [Fact]
    public async Task Resp3_replies_are_formatted_as_redis_formats_them()
    {
        Assert.Equal("(nil)\n", await CliOutputAsync(Port, "-3", "--no-raw", "get", "resp3:missing"));
        Assert.Equal("1# \"maxmemory-policy\" => \"allkeys-lru\"\n", await CliOutputAsync(Port, "-3", "--no-raw", "config", "get", "maxmemory-policy"));
    }

    [Fact]
    public async Task Redis_benchmark_runs_without_errors()
    {
        var (exitCode, output, errors) = await RunAsync("redis-benchmark", ["-p", Port.ToString(CultureInfo.InvariantCulture), "-t", "set,get", "-n", "2000", "-q"]);

        var all = output + errors;
        Assert.True(exitCode == 0, $"redis-benchmark exited with {exitCode}: {all}");
        Assert.Matches(@"SET: [0-9.]+ requests per second", all);
        Assert.Matches(@"GET: [0-9.]+ requests per second", all);
        Assert.DoesNotContain("error", all, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public async Task Sigterm_stops_the_silo_gracefully_with_exit_code_zero_even_with_idle_clients()
    {
        using var silo = await SiloProcess.StartAsync();
        Assert.Equal("OK\n", await CliOutputAsync(silo.RespPort, "set", "k", "v"));

        // Connection pools keep idle connections open; they must not hold the shutdown up to its timeout.
        await using var idle = await RespTestClient.ConnectAsync(silo.RespEndPoint);
        RespAssert.SimpleString("PONG", await idle.CallAsync("PING"));

        var exitCode = await silo.StopAsync(TimeSpan.FromSeconds(10));

        Assert.True(exitCode == 0, $"exit code {exitCode}{silo.Describe()}");
        Assert.True(await idle.IsClosedByServerAsync());
        await Assert.ThrowsAsync<SocketException>(async () => await RespTestClient.ConnectAsync(silo.RespEndPoint));
    }

    [Fact]
    public async Task Sigterm_stops_an_idle_silo_at_once()
    {
        using var silo = await SiloProcess.StartAsync();

        var exitCode = await silo.StopAsync(TimeSpan.FromSeconds(10));

        Assert.True(exitCode == 0, $"exit code {exitCode}{silo.Describe()}");
    }
}
