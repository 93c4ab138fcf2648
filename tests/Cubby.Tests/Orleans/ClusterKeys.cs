using System.Diagnostics;
using System.Text;
using Cubby.Client;
using Cubby.Sharding;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Orleans;

/// <summary>Keys on a <see cref="ProcessCluster"/>: a client that finds it, writing and checking many keys, and where their shards are.</summary>
internal static class ClusterKeys
{
    /// <summary>The RESP endpoint of the silo each shard is active on, asked with CUBBY.OWNER through one silo.</summary>
    public static async Task<string[]> OwnersAsync(ProcessCluster cluster, int through)
    {
        var shardMap = new ShardMap(cluster.SlotCount);
        var owners = new string[cluster.SlotCount];
        await using var client = await RespTestClient.ConnectAsync(cluster[through].RespEndPoint);
        for (int i = 0, found = 0; found < cluster.SlotCount; i++)
        {
            var key = $"owner-probe:{i}";
            var slot = shardMap.SlotOf(Encoding.UTF8.GetBytes(key));
            if (owners[slot] is null)
            {
                var reply = await client.CallAsync("CUBBY.OWNER", key);
                owners[slot] = reply.Items[1].AsString()!;
                found++;
            }
        }

        return owners;
    }

    /// <summary>The first key of the form <c>{prefix}:{n}</c> whose shard is active on the silo at <paramref name="silo"/>.</summary>
    public static async Task<string> KeyOnAsync(ProcessCluster cluster, int silo, string prefix)
    {
        var owners = await OwnersAsync(cluster, 0);
        var shardMap = new ShardMap(cluster.SlotCount);
        var endpoint = $"127.0.0.1:{cluster.RespPort(silo)}";
        return Enumerable.Range(0, 100_000).Select(i => $"{prefix}:{i}").First(key => owners[shardMap.SlotOf(Encoding.UTF8.GetBytes(key))] == endpoint);
    }

    public static ServiceProvider ClientFor(ProcessCluster cluster, Action<CubbyClientOptions>? configure = null)
    {
        var services = new ServiceCollection();
        services.AddLogging();
        // The client finds the gateways where the silos find each other: the membership table.
        services.AddCubbyClient(options =>
        {
            options.Clustering.ConnectionString = cluster.ConnectionString;
            options.ClusterId = cluster.ClusterId;
            options.SlotCount = cluster.SlotCount;
            configure?.Invoke(options);
        });
        return services.BuildServiceProvider();
    }

    /// <summary>Writes each key with <see cref="ValueOf"/> as its value.</summary>
    public static async Task WriteAllAsync(ICubbyClient client, string[] keys, int valueBytes = 0)
    {
        const int Parallel = 64;
        await Task.WhenAll(Enumerable.Range(0, Parallel).Select(async lane =>
        {
            for (var i = lane; i < keys.Length; i += Parallel)
            {
                await client.PutAsync(keys[i], Encoding.UTF8.GetBytes(ValueOf(keys[i], valueBytes)));
            }
        }));
    }

    /// <summary>The keys of <paramref name="keys"/> that do not read back as <see cref="ValueOf"/>, in no order.</summary>
    public static async Task<List<string>> FindMissingAsync(ICubbyClient client, string[] keys, int valueBytes = 0)
    {
        const int Parallel = 64;
        var missing = new System.Collections.Concurrent.ConcurrentBag<string>();
        await Task.WhenAll(Enumerable.Range(0, Parallel).Select(async lane =>
        {
            for (var i = lane; i < keys.Length; i += Parallel)
            {
                var value = await client.GetAsync(keys[i]);
                if (value is null || Encoding.UTF8.GetString(value) != ValueOf(keys[i], valueBytes))
                {
                    missing.Add(keys[i]);
                }
            }
        }));
        return [.. missing];
    }

    /// <summary>A key's value in these tests: its own name, padded with dots to <paramref name="valueBytes"/>.</summary>
    public static string ValueOf(string key, int valueBytes) => key.PadRight(valueBytes, '.');

    /// <summary>Time until every key answers a write (of "after") and a read without error.</summary>
    public static Task<TimeSpan> WaitUntilKeysAnswerAsync(ICubbyClient client, string[] keys, TimeSpan timeout) =>
        TimeUntilAnsweredAsync(async () =>
        {
            foreach (var key in keys)
            {
                await client.PutAsync(key, Encoding.UTF8.GetBytes("after"));
            }
        }, timeout);

    /// <summary>Time until a read of all <paramref name="keys"/> at once answers without error (whether or not they are found).</summary>
    public static Task<TimeSpan> WaitUntilReadsAnswerAsync(ICubbyClient client, string[] keys, TimeSpan timeout) =>
        TimeUntilAnsweredAsync(() => client.GetManyAsync(keys).AsTask(), timeout);

    /// <summary>A summary of <paramref name="missing"/> keys for an assertion's message: how many, and the first few.</summary>
    public static string Describe(IReadOnlyCollection<string> missing) =>
        $"{missing.Count} keys missing, first: {string.Join(", ", missing.Take(5))}";

    private static async Task<TimeSpan> TimeUntilAnsweredAsync(Func<Task> call, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < timeout)
        {
            try
            {
                await call();
                return clock.Elapsed;
            }
            catch (Exception exception) when (exception is CubbyException or TimeoutException)
            {
                await Task.Delay(100);
            }
        }

        return clock.Elapsed;
    }
}
