using System.Globalization;
using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.DependencyInjection;

// Usage: Cubby.Tests.Filler <gateway host:port> <key> <fill lease in ms>. Prints "filling" once its factory runs, which
// is once the key's shard granted this process the lease; the factory then never returns.
if (args.Length != 3)
{
    await Console.Error.WriteLineAsync("usage: Cubby.Tests.Filler <gateway host:port> <key> <fill lease ms>");
    return 2;
}

var services = new ServiceCollection();
services.AddCubbyClient(options =>
{
    options.Endpoints.Add(args[0]);
    options.FillLease = TimeSpan.FromMilliseconds(int.Parse(args[2], CultureInfo.InvariantCulture));
}).AddCubbyHybridCache();
await using var provider = services.BuildServiceProvider();
await provider.GetRequiredService<HybridCache>().GetOrCreateAsync<string>(args[1], async token =>
{
    Console.WriteLine("filling");
    await Task.Delay(Timeout.Infinite, token);
    return "never";
});
return 0;
