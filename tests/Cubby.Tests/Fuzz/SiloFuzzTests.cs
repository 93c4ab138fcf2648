using System.Globalization;
using Cubby.Resp;
using Cubby.Tests.Infrastructure;
using Xunit.Abstractions;

namespace Cubby.Tests.Fuzz;

/// <summary>
/// A silo process under hostile and malformed RESP from many connections stays up and loses none of the data nobody
/// touched. Bounded to a few seconds here; the longer campaign is the same test with <c>CUBBY_FUZZ_SECONDS</c> set
/// (see README, "Fuzzing").
/// </summary>
[Collection(FullLoadCollection.Name)]
public sealed class SiloFuzzTests(ITestOutputHelper output)
{
    private const int Connections = 8;
    private const int Sentinels = 200;

    [Fact]
    public async Task Hostile_frames_from_many_connections_leave_the_silo_up_and_other_data_intact()
    {
        var seconds = int.TryParse(Environment.GetEnvironmentVariable("CUBBY_FUZZ_SECONDS"), CultureInfo.InvariantCulture, out var configured) ? configured : 5;
        var seed = int.TryParse(Environment.GetEnvironmentVariable("CUBBY_FUZZ_SEED"), CultureInfo.InvariantCulture, out var chosen) ? chosen : Environment.TickCount;
        // A budget far above what the fuzz keys can grow to, so no sentinel is evicted to make room for them.
        using var silo = await SiloProcess.StartAsync("--Cubby:MaxMemoryBytes", "4294967296");
        var keys = Enumerable.Range(0, Sentinels).Select(static i => "sentinel:" + i.ToString(CultureInfo.InvariantCulture)).ToArray();
        await using (var setup = await RespTestClient.ConnectAsync(silo.RespEndPoint))
        {
            RespAssert.Ok(await setup.CallAsync(["MSET", .. keys.SelectMany(static key => new object[] { key, "value of " + key })]));
            RespAssert.Integer(2, await setup.CallAsync("HSET", "sentinel:hash", "f1", "v1", "f2", "v2"));
        }

        var totals = await SiloFuzzer.RunAsync(silo.RespEndPoint, Connections, TimeSpan.FromSeconds(seconds), seed);
        output.WriteLine($"fuzz: seed {seed}, {seconds} s, {totals.Frames} frames over {totals.Connections} connections ({totals.ClosedBySilo} closed by the silo), silo up: {!silo.HasExited}");

        Assert.False(silo.HasExited, $"the silo exited during fuzzing (seed {seed}):\n{silo.Output}");
        Assert.True(totals.Frames > 0);
        await using var check = await RespTestClient.ConnectAsync(silo.RespEndPoint);
        RespAssert.SimpleString("PONG", await check.CallAsync("PING"));
        Assert.Equal(keys.Select(static key => "value of " + key), RespAssert.Strings(await check.CallAsync(["MGET", .. keys])));
        Assert.Equal(["f1", "v1", "f2", "v2"], RespAssert.Strings(await check.CallAsync("HGETALL", "sentinel:hash")));
    }
}
