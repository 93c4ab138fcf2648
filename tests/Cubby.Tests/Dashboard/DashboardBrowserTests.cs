using System.Globalization;
using Cubby.Tests.Infrastructure;
using Microsoft.Playwright;
using Xunit.Abstractions;

namespace Cubby.Tests.Dashboard;

/// <summary>
/// The dashboard in headless Chromium (Debian's, driven by Playwright) against three silo processes: every silo
/// listed, numbers moving under load, a killed silo shown dead, and a screenshot kept as a test artifact.
/// </summary>
public sealed class DashboardBrowserTests(ITestOutputHelper output)
{
    private const string Password = "browser-test-password";
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task The_dashboard_shows_the_cluster_live_and_a_killed_silo_as_dead()
    {
        using var cluster = await ProcessDevelopmentCluster.StartAsync(3, "--Cubby:Dashboard:Password", Password);
        using var load = new CancellationTokenSource();
        var loading = Task.WhenAll(cluster.Silos.Take(2).Select(silo => LoadAsync(silo, load.Token)));
        try
        {
            using var playwright = await Playwright.CreateAsync();
            await using var browser = await playwright.Chromium.LaunchAsync(new() { ExecutablePath = "/usr/bin/chromium", Headless = true });
            await using var context = await browser.NewContextAsync(new()
            {
                HttpCredentials = new() { Username = "operator", Password = Password },
                ViewportSize = new() { Width = 1400, Height = 1000 },
            });
            var page = await context.NewPageAsync();
            var errors = new List<string>();
            page.Console += (_, message) =>
            {
                if (message.Type == "error")
                {
                    errors.Add(message.Text);
                }
            };
            page.Response += (_, response) =>
            {
                if (response.Status >= 400)
                {
                    errors.Add($"{response.Status} {response.Url}");
                }
            };
            await page.GotoAsync($"http://127.0.0.1:{cluster.Silos[0].HttpPort}/dashboard");

            await WaitForAsync(page, cluster, "three active silos", async () => await page.Locator("#silo-rows tr[data-silo-id][data-status='Active']").CountAsync() == 3);
            foreach (var silo in cluster.Silos)
            {
                await WaitForAsync(page, cluster, $"the silo on port {silo.RespPort} listed", async () => await StatusOfAsync(page, silo.RespPort) == "Active");
            }

            // Under load the cluster's operations per second move from one poll to the next.
            await WaitForAsync(page, cluster, "operations under load", async () => await TotalOpsAsync(page) > 0);
            var first = await TotalOpsAsync(page);
            await WaitForAsync(page, cluster, "the operations figure to change", async () => await TotalOpsAsync(page) != first);

            var victim = cluster.Silos[2];
            victim.Kill();
            await WaitForAsync(page, cluster, "the killed silo shown dead", async () => await StatusOfAsync(page, victim.RespPort) == "Dead");
            await WaitForAsync(page, cluster, "a 'declared dead' event", async () => await page.Locator("#events li[data-change='declared dead']").CountAsync() > 0);

            var screenshot = Path.Combine(AppContext.BaseDirectory, "artifacts", "dashboard.png");
            Directory.CreateDirectory(Path.GetDirectoryName(screenshot)!);
            await page.ScreenshotAsync(new() { Path = screenshot, FullPage = true });
            output.WriteLine($"Dashboard screenshot: {screenshot}");
            Assert.True(new FileInfo(screenshot).Length > 10_000, "The screenshot is suspiciously small.");
            Assert.True(errors.Count == 0, "The page reported errors:\n" + string.Join('\n', errors));
        }
        finally
        {
            await load.CancelAsync();
            await loading;
        }
    }

    private static async Task<string> StatusOfAsync(IPage page, int respPort) =>
        await page.EvaluateAsync<string>(
            "port => { const row = [...document.querySelectorAll('#silo-rows tr[data-silo-id]')].find(r => r.querySelector('[data-field=endpoint]').textContent.endsWith(':' + port)); return row ? row.dataset.status : ''; }",
            respPort);

    private static async Task<double> TotalOpsAsync(IPage page) =>
        double.Parse(await page.Locator("#total-ops").GetAttributeAsync("data-value") ?? "0", CultureInfo.InvariantCulture);

    private static async Task WaitForAsync(IPage page, ProcessDevelopmentCluster cluster, string what, Func<Task<bool>> condition)
    {
        var clock = System.Diagnostics.Stopwatch.StartNew();
        while (!await condition())
        {
            if (clock.Elapsed > Deadline)
            {
                var rows = await page.Locator("#silo-rows").InnerTextAsync();
                var connection = await page.Locator("#connection").InnerTextAsync();
                Assert.Fail($"Still waiting after {Deadline.TotalSeconds:0}s for {what}. Page: {connection}\n{rows}{cluster.DescribeAll()}");
            }

            await Task.Delay(200);
        }
    }

    /// <summary>SETs and GETs in a loop until cancelled, so the dashboard has something to show.</summary>
    private static async Task LoadAsync(SiloProcess silo, CancellationToken cancellation)
    {
        await using var client = await RespTestClient.ConnectAsync(silo.RespEndPoint);
        for (var i = 0; !cancellation.IsCancellationRequested; i++)
        {
            // Reads range wider than writes, so some miss and the hit ratio has something to show.
            await client.CallAsync("SET", $"load:{silo.RespPort}:{i % 500}", "value");
            await client.CallAsync("GET", $"load:{silo.RespPort}:{(i * 7) % 700}");
            if (i % 50 == 0)
            {
                // Keep the load moderate: the machine is small and the browser shares it.
                await Task.Delay(5, CancellationToken.None);
            }
        }
    }
}
