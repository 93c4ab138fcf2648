using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.Json;
using Cubby.Client;
using Cubby.Tests.Client;
using Cubby.Tests.Dashboard;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Orleans;

/// <summary>
/// <c>Cubby:Clustering:Tls</c> on silo processes: silos of the cluster's authority join each other and serve clients that
/// trust it; a silo with another authority's certificate cannot join; with mutual TLS a client without a certificate
/// cannot connect; and what crosses the silo and gateway ports, captured with tcpdump, shows no key.
/// </summary>
public sealed class ClusterTlsTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);
    private readonly TestAuthority _authority = new();

    [Fact]
    public async Task Silos_of_the_cluster_authority_serve_clients_with_a_certificate_and_refuse_strangers()
    {
        var silo = _authority.Issue("silo");
        using var cluster = await ProcessDevelopmentCluster.StartAsync(2, [.. Tls(silo, _authority.CertificatePath), "--Cubby:Clustering:Tls:RequireClientCertificate", "true"]);
        await WaitForActiveMembersAsync(cluster.Silos[0], cluster.Silos.Select(s => s.SiloPort), cluster);

        var client = _authority.Issue("client", [TestAuthority.ClientAuthentication]);
        await using (var app = App(cluster, tls => (tls.AuthorityPath, tls.CertificatePath, tls.KeyPath) = (_authority.CertificatePath, client.CertificatePath, client.KeyPath)))
        {
            var cubby = app.GetRequiredService<ICubbyClient>();
            var keys = Enumerable.Range(0, 64).Select(i => $"tls:{i}").ToArray();
            await cubby.PutManyAsync([.. keys.Select(key => new KeyValuePair<string, ReadOnlyMemory<byte>>(key, Encoding.UTF8.GetBytes(key)))]);
            var owners = await Task.WhenAll(keys.Select(key => cubby.GetOwnerAsync(key).AsTask()));
            Assert.Equal(2, owners.Select(owner => owner.Silo).Distinct().Count());
            Assert.Equal(keys.Select(Encoding.UTF8.GetBytes), await cubby.GetManyAsync(keys));
        }

        // Trusting the silos is not enough when they require a client certificate; sending nothing TLS at all neither.
        await AssertRefusedAsync(cluster, tls => tls.AuthorityPath = _authority.CertificatePath);
        await AssertRefusedAsync(cluster, configureTls: null);

        using var stranger = new TestAuthority("Another authority");
        var impostor = stranger.Issue("impostor");
        using var rogue = SiloProcess.Start(SiloProcess.FreePort(), SiloProcess.FreePort(),
        [
            "--Cubby:Clustering:Mode", "Development", "--Cubby:SlotCount", "256", "--Logging:LogLevel:Default", "Warning",
            "--Cubby:Clustering:PrimaryEndpoint", $"127.0.0.1:{cluster.Silos[0].SiloPort}",
            .. Tls(impostor, stranger.CertificatePath),
        ]);
        await Poll.UntilAsync(() => cluster.Silos[0].Output.Contains("Authentication failed", StringComparison.Ordinal), Deadline,
            $"the primary to refuse the impostor's TLS handshake{cluster.DescribeAll()}{rogue.Describe()}");
        await WaitForActiveMembersAsync(cluster.Silos[0], cluster.Silos.Select(s => s.SiloPort), cluster);
        Assert.DoesNotContain($":{rogue.SiloPort}@", await ClusterReportAsync(cluster.Silos[0]), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_capture_of_silo_and_gateway_traffic_shows_keys_only_without_tls(bool tls)
    {
        // One certificate the whole cluster shares, trusted as itself: no authority file.
        var shared = _authority.SelfSigned("cluster");
        using var cluster = await ProcessDevelopmentCluster.StartAsync(2, tls ? Tls(shared, authorityPath: null) : []);
        await WaitForActiveMembersAsync(cluster.Silos[0], cluster.Silos.Select(s => s.SiloPort), cluster);
        var (primary, joiner) = (cluster.Silos[0], cluster.Silos[1]);
        using var siloLink = await Capture.StartAsync($"tcp port {primary.SiloPort} or tcp port {joiner.SiloPort}");
        using var gatewayLink = await Capture.StartAsync($"tcp port {primary.GatewayPort}");

        // Only the primary's gateway is used (not learning the joiner's), so keys whose shards live on the joiner cross
        // the silo link too.
        await using (var app = App(cluster, tls ? options => options.AuthorityPath = shared.CertificatePath : null, gateways: 1))
        {
            var cubby = app.GetRequiredService<ICubbyClient>();
            var keys = Enumerable.Range(0, 64).Select(i => $"plaintext-probe-{i}").ToArray();
            foreach (var key in keys)
            {
                await cubby.PutAsync(key, Encoding.UTF8.GetBytes("value-" + key));
                Assert.Equal("value-" + key, Encoding.UTF8.GetString((await cubby.GetAsync(key))!));
            }

            Assert.Contains(await Task.WhenAll(keys.Select(key => cubby.GetOwnerAsync(key).AsTask())), owner => owner.Silo == $"127.0.0.1:{joiner.SiloPort}");
        }

        foreach (var capture in new[] { siloLink, gatewayLink })
        {
            var bytes = await capture.StopAsync();
            Assert.True(bytes.Length > 4096, $"The capture ({capture.Filter}) holds only {bytes.Length} bytes.");
            Assert.Equal(!tls, bytes.AsSpan().IndexOf("plaintext-probe-"u8) >= 0);
        }
    }

    [Fact]
    public async Task A_silo_whose_cluster_certificate_is_missing_stops_at_start_naming_the_setting()
    {
        using var silo = SiloProcess.Start(SiloProcess.FreePort(), SiloProcess.FreePort(),
            ["--Cubby:Clustering:Tls:CertificatePath", Path.Combine(Path.GetTempPath(), "cubby-absent.crt")]);
        await Poll.UntilAsync(() => silo.HasExited, Deadline, $"the silo to stop{silo.Describe()}");

        Assert.NotEqual(0, await silo.StopAsync(TimeSpan.FromSeconds(5)));
        Assert.Contains("Cubby:Clustering:Tls:CertificatePath: cannot load the certificate", silo.Output, StringComparison.Ordinal);
    }

    public void Dispose() => _authority.Dispose();

    private static string[] Tls(IssuedCertificate certificate, string? authorityPath) =>
    [
        "--Cubby:Clustering:Tls:CertificatePath", certificate.CertificatePath,
        "--Cubby:Clustering:Tls:KeyPath", certificate.KeyPath,
        .. authorityPath is null ? Array.Empty<string>() : ["--Cubby:Clustering:Tls:AuthorityPath", authorityPath],
    ];

    private static ServiceProvider App(ProcessDevelopmentCluster cluster, Action<CubbyClientTlsOptions>? configureTls, int? gateways = null)
    {
        var services = new ServiceCollection();
        services.AddCubbyClient(options =>
        {
            foreach (var silo in cluster.Silos.Take(gateways ?? cluster.Silos.Count))
            {
                options.Endpoints.Add(silo.Gateway);
            }

            // Given fewer gateways, the client keeps to them instead of learning the others.
            options.LearnGateways = gateways is null;

            options.SlotCount = 256;
            options.ConnectTimeout = TimeSpan.FromSeconds(5);
            configureTls?.Invoke(options.Tls);
        });
        return services.BuildServiceProvider();
    }

    private static async Task AssertRefusedAsync(ProcessDevelopmentCluster cluster, Action<CubbyClientTlsOptions>? configureTls)
    {
        await using var app = App(cluster, configureTls);
        var cubby = app.GetRequiredService<ICubbyClient>();
        await Assert.ThrowsAsync<CubbyConnectionException>(() => cubby.GetAsync("tls:0").AsTask().WaitAsync(TestDeadlines.Phase));
    }

    private static async Task<string> ClusterReportAsync(SiloProcess silo)
    {
        using var http = new HttpClient { Timeout = TimeSpan.FromSeconds(5) };
        return await http.GetStringAsync($"http://127.0.0.1:{silo.HttpPort}/cluster");
    }

    /// <summary>Polls <paramref name="silo"/>'s <c>/cluster</c> until exactly the silos on <paramref name="siloPorts"/> are active.</summary>
    private static async Task WaitForActiveMembersAsync(SiloProcess silo, IEnumerable<int> siloPorts, ProcessDevelopmentCluster cluster)
    {
        var expected = siloPorts.Select(port => $"127.0.0.1:{port}").Order().ToArray();
        var last = "";
        await Poll.UntilAsync(async () =>
        {
            last = await ClusterReportAsync(silo);
            using var report = JsonDocument.Parse(last);
            var active = report.RootElement.GetProperty("silos").EnumerateArray()
                .Where(member => member.GetProperty("status").GetString() == "Active")
                .Select(member => member.GetProperty("address").GetString()!.Split('@')[0])
                .Order();
            return active.SequenceEqual(expected);
        }, Deadline, $"{string.Join(", ", expected)} to be the active members; last /cluster: {last}{cluster.DescribeAll()}");
    }

    /// <summary>tcpdump on loopback, writing every packet that matches <see cref="Filter"/> to a file as it arrives.</summary>
    private sealed class Capture : IDisposable
    {
        private readonly Process _process;
        private readonly string _path;
        private readonly StringBuilder _errors = new();

        private Capture(Process process, string path, string filter)
        {
            (_process, _path, Filter) = (process, path, filter);
        }

        public string Filter { get; }

        public static async Task<Capture> StartAsync(string filter)
        {
            var path = Path.Combine(Path.GetTempPath(), $"cubby-capture-{Guid.NewGuid():N}.pcap");
            var start = new ProcessStartInfo("tcpdump") { RedirectStandardError = true, RedirectStandardOutput = true, UseShellExecute = false };
            foreach (var argument in new[] { "-i", "lo", "-U", "-s", "0", "-w", path, filter })
            {
                start.ArgumentList.Add(argument);
            }

            var process = Process.Start(start) ?? throw new InvalidOperationException("tcpdump did not start.");
            var capture = new Capture(process, path, filter);
            process.ErrorDataReceived += (_, line) =>
            {
                lock (capture._errors)
                {
                    capture._errors.AppendLine(line.Data);
                }
            };
            process.BeginErrorReadLine();
            await Poll.UntilAsync(() => capture.Errors.Contains("listening on", StringComparison.Ordinal) || process.HasExited, Deadline, "tcpdump to listen");
            Assert.False(process.HasExited, $"tcpdump exited: {capture.Errors}");
            return capture;
        }

        private string Errors
        {
            get
            {
                lock (_errors)
                {
                    return _errors.ToString();
                }
            }
        }

        public async Task<byte[]> StopAsync()
        {
            // SIGINT, as at a terminal: tcpdump flushes and closes the file.
            _ = Interrupt(_process.Id, 2);
            await _process.WaitForExitAsync().WaitAsync(Deadline);
            return await File.ReadAllBytesAsync(_path);
        }

        public void Dispose()
        {
            if (!_process.HasExited)
            {
                _process.Kill();
            }

            _process.Dispose();
            File.Delete(_path);
        }

        [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "kill")]
        private static extern int Interrupt(int processId, int signal);
    }
}
