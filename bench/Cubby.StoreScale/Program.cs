using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using Cubby.StoreScale;

// Usage: dotnet run -c Release --project bench/Cubby.StoreScale -- [entries] [value-bytes] [silo-dll]
var entries = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 5_000_000;
var valueBytes = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 100;
var root = Repository.Root();
var siloDll = args.Length > 2 ? args[2] : Path.Combine(root, "silo/Cubby.Silo/bin/Release/net10.0/Cubby.Silo.dll");
if (!File.Exists(siloDll))
{
    Console.Error.WriteLine($"Build the silo first: dotnet build silo/Cubby.Silo -c Release (looked for {siloDll}).");
    return 2;
}

var results = new List<ScaleResult>();
foreach (var server in new[] { "cubby-native", "cubby-managed", "redis" })
{
    var port = Ports.Free();
    using var process = server == "redis"
        ? Server.Start("redis-server", $"--port {port} --bind 127.0.0.1 --save '' --appendonly no --maxmemory 0")
        : Server.Start("dotnet", $"{siloDll} --Cubby:Host 127.0.0.1 --Cubby:RespPort {port} --Cubby:HttpPort {Ports.Free()} --Cubby:MaxMemoryBytes 17179869184 --Cubby:Store {(server == "cubby-native" ? "Native" : "Managed")} --Logging:LogLevel:Default Warning");
    await Server.WaitForPortAsync(port);
    using var client = await Resp.ConnectAsync(port);
    var baselineRss = Server.RssBytes(process.Id);
    var loadWatch = Stopwatch.StartNew();
    await client.LoadAsync(entries, valueBytes);
    loadWatch.Stop();
    var loadedRss = Server.RssBytes(process.Id);
    var info = Info.Parse(await client.CallAsync("INFO"));
    var usedMemory = long.Parse(info["used_memory"], CultureInfo.InvariantCulture);

    // Mixed GET/SET over the loaded keys, from redis-benchmark in a second process.
    var benchmark = Server.Run("redis-benchmark", $"-p {port} -t set,get -r {entries} -d {valueBytes} -c 64 -n 1000000 -P 16 --csv");
    var after = Info.Parse(await client.CallAsync("INFO"));
    var result = new ScaleResult(
        server,
        entries,
        valueBytes,
        Math.Round(entries / loadWatch.Elapsed.TotalSeconds),
        (double)(loadedRss - baselineRss) / entries,
        (double)usedMemory / entries,
        after.GetValueOrDefault("gc_pauses_recorded"),
        after.GetValueOrDefault("gc_pause_p99_ms"),
        after.GetValueOrDefault("gc_pause_max_ms"),
        after.GetValueOrDefault("gc_gen2_collections"),
        benchmark.Trim());
    Console.WriteLine(JsonSerializer.Serialize(result));
    results.Add(result);
    Server.Stop(process);
}

var outDir = Path.Combine(root, "bench/results");
Directory.CreateDirectory(outDir);
// Named by what it measures, so a run replaces the last one (git keeps the history).
var stem = Path.Combine(outDir, "store-scale");
await File.WriteAllTextAsync(stem + ".json", JsonSerializer.Serialize(results, new JsonSerializerOptions { WriteIndented = true }));
await File.WriteAllTextAsync(stem + ".md", Report.Markdown(results));
Console.WriteLine(Report.Markdown(results));
return 0;
