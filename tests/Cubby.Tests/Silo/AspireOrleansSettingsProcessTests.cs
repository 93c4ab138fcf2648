using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Cubby.Tests.Infrastructure;
using Npgsql;

namespace Cubby.Tests.Silo;

/// <summary>
/// Silo executables given only the environment .NET Aspire's <c>silo.WithReference(orleans)</c> gives (the
/// <c>Orleans__*</c> settings and the connection string its service key names) plus their RESP and HTTP ports form one
/// cluster on the ids, ports and clustering it names: both list each other, and a key written through one is read
/// through the other.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class AspireOrleansSettingsProcessTests(PostgresServer server) : OwnSchemaTests(server, "cubby_aspire")
{
    private const int OrleansActive = 3;
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(90);

    [Fact]
    public async Task Two_silos_with_only_Aspires_Orleans_settings_form_one_cluster_on_PostgreSQL()
    {
        var clusterId = $"aspire-{Guid.NewGuid():N}";
        var connectionString = ConnectionString;
        Dictionary<string, string> aspire = new()
        {
            ["Orleans__ClusterId"] = clusterId,
            ["Orleans__ServiceId"] = "aspire-service",
            ["Orleans__Clustering__ProviderType"] = "AdoNet",
            ["Orleans__Clustering__ServiceKey"] = "postgres",
            ["ConnectionStrings__postgres"] = connectionString,
            ["Orleans__EnableDistributedTracing"] = "true",
        };

        using var first = SiloProcess.StartWithEnvironment(aspire);
        using var second = SiloProcess.StartWithEnvironment(aspire);
        SiloProcess[] silos = [first, second];
        await Task.WhenAll(silos.Select(silo => silo.WaitUntilReadyAsync(Deadline)));

        await WaitUntilEachListsBothAsync(silos, clusterId, "Postgres");
        Assert.Equal(
            silos.Select(silo => silo.SiloPort).Order(),
            (await ActiveMembersInTheTableAsync(connectionString, clusterId)).Order());
        await AssertWrittenThroughOneIsReadThroughTheOtherAsync(first, second);
    }

    [Fact]
    public async Task Two_silos_on_Aspires_development_clustering_form_one_cluster()
    {
        var clusterId = $"aspire-dev-{Guid.NewGuid():N}";
        Dictionary<string, string> aspire = new()
        {
            ["Orleans__ClusterId"] = clusterId,
            ["Orleans__ServiceId"] = "aspire-service",
            ["Orleans__Clustering__ProviderType"] = "Development",
        };

        using var primary = SiloProcess.StartWithEnvironment(aspire);
        await primary.WaitUntilReadyAsync(Deadline);
        using var joiner = SiloProcess.StartWithEnvironment(new Dictionary<string, string>(aspire) { ["Orleans__Clustering__PrimarySiloEndpoint"] = $"127.0.0.1:{primary.SiloPort}" });
        await joiner.WaitUntilReadyAsync(Deadline);
        SiloProcess[] silos = [primary, joiner];

        await WaitUntilEachListsBothAsync(silos, clusterId, "Development");
        await AssertWrittenThroughOneIsReadThroughTheOtherAsync(primary, joiner);
    }

    /// <summary>Polls each silo's <c>/cluster</c> until it reports the cluster id and mode and both silos, active, on the silo ports Aspire gave.</summary>
    private static async Task WaitUntilEachListsBothAsync(SiloProcess[] silos, string clusterId, string mode)
    {
        using var http = new HttpClient { Timeout = TimeSpan.FromSeconds(5) };
        var expected = silos.Select(silo => $"127.0.0.1:{silo.SiloPort}").Order().ToArray();
        var clock = Stopwatch.StartNew();
        var last = "";
        foreach (var silo in silos)
        {
            while (true)
            {
                try
                {
                    using var report = JsonDocument.Parse(await http.GetStringAsync($"http://127.0.0.1:{silo.HttpPort}/cluster"));
                    var root = report.RootElement;
                    var active = root.GetProperty("silos").EnumerateArray()
                        .Where(member => member.GetProperty("status").GetString() == "Active")
                        .Select(member => member.GetProperty("address").GetString()!.Split('@')[0])
                        .Order()
                        .ToArray();
                    last = root.ToString();
                    if (root.GetProperty("clusterId").GetString() == clusterId && root.GetProperty("mode").GetString() == mode && active.SequenceEqual(expected))
                    {
                        break;
                    }
                }
                catch (Exception exception) when (exception is HttpRequestException or TaskCanceledException)
                {
                    last = exception.Message;
                }

                Assert.False(silo.HasExited, $"The silo exited.{silo.Describe()}");
                Assert.True(clock.Elapsed < Deadline, $"Within {Deadline} silo {silo.HttpPort} did not list {string.Join(", ", expected)} as active members of {clusterId} ({mode}); last /cluster: {last}{string.Concat(silos.Select(s => s.Describe()))}");
                await Task.Delay(200);
            }
        }
    }

    private static async Task AssertWrittenThroughOneIsReadThroughTheOtherAsync(SiloProcess writer, SiloProcess reader)
    {
        var keys = Enumerable.Range(0, 64).Select(i => $"aspire:{i}").ToArray();
        await using (var client = await RespTestClient.ConnectAsync(writer.RespEndPoint))
        {
            foreach (var key in keys)
            {
                RespAssert.Ok(await client.CallAsync("SET", key, $"value of {key}"));
            }
        }

        await using (var client = await RespTestClient.ConnectAsync(reader.RespEndPoint))
        {
            foreach (var key in keys)
            {
                RespAssert.Bulk($"value of {key}", await client.CallAsync("GET", key));
            }

            // Some of the keys live on the writer, so the reader fetched them through Orleans from the other silo.
            var owners = new HashSet<string>();
            foreach (var key in keys)
            {
                owners.Add((await client.CallAsync("CUBBY.OWNER", key)).Items[1].AsString()!);
            }

            Assert.Contains($"127.0.0.1:{writer.RespPort}", owners);
        }
    }

    /// <summary>The silo ports of the cluster's active rows in Orleans' membership table.</summary>
    private static async Task<List<int>> ActiveMembersInTheTableAsync(string connectionString, string clusterId)
    {
        await using var connection = new NpgsqlConnection(connectionString);
        await connection.OpenAsync();
        await using var command = new NpgsqlCommand("SELECT port FROM orleansmembershiptable WHERE deploymentid = @cluster AND status = @active", connection);
        command.Parameters.AddWithValue("cluster", clusterId);
        command.Parameters.AddWithValue("active", OrleansActive);
        var ports = new List<int>();
        await using var reader = await command.ExecuteReaderAsync();
        while (await reader.ReadAsync())
        {
            ports.Add(Convert.ToInt32(reader.GetValue(0), CultureInfo.InvariantCulture));
        }

        return ports;
    }
}
