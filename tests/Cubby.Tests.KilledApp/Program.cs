using System.Globalization;
using Cubby.Client;
using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.DependencyInjection;

// An app process for a test to kill mid-work. Each mode prints a line once it is there, then waits for ever:
//   fill <gateway host:port> <key> <fill lease ms>: prints "filling" once its HybridCache factory for <key> runs, which
//     is once the key's shard granted this process the fill lease; the factory never returns.
//   read <gateway host:port> <key prefix> <count>: reads <prefix>0 .. <prefix><count - 1> through its near cache, round
//     after round; prints "reading" after the first round.
const string Usage = "usage: Cubby.Tests.KilledApp fill <gateway host:port> <key> <fill lease ms> | read <gateway host:port> <key prefix> <count>";
if (args.Length != 4 || args[0] is not ("fill" or "read"))
{
    await Console.Error.WriteLineAsync(Usage);
    return 2;
}

var services = new ServiceCollection();
var number = int.Parse(args[3], CultureInfo.InvariantCulture);
services.AddCubbyClient(options =>
{
    options.Endpoints.Add(args[1]);
    options.FillLease = TimeSpan.FromMilliseconds(args[0] == "fill" ? number : options.FillLease.TotalMilliseconds);
    options.NearCache.Enabled = args[0] == "read";
}).AddCubbyHybridCache();
await using var provider = services.BuildServiceProvider();
if (args[0] == "fill")
{
    await provider.GetRequiredService<HybridCache>().GetOrCreateAsync<string>(args[2], async token =>
    {
        Console.WriteLine("filling");
        await Task.Delay(Timeout.Infinite, token);
        return "never";
    });
    return 0;
}

var client = provider.GetRequiredService<ICubbyClient>();
var keys = Enumerable.Range(0, number).Select(i => args[2] + i.ToString(CultureInfo.InvariantCulture)).ToArray();
for (var round = 0; ; round++)
{
    // Round after round: the reads before the near cache's first lease are not kept, the ones after are.
    foreach (var key in keys)
    {
        await client.GetAsync(key);
    }

    if (round == 0)
    {
        Console.WriteLine("reading");
    }

    await Task.Delay(50);
}
