using System.Collections.Concurrent;
using System.Diagnostics;
using Cubby.Tests.Infrastructure;
using Xunit.Abstractions;

namespace Cubby.Tests.Orleans;

/// <summary>
/// Real silos in the test process on Orleans' Development clustering, driven through their RESP front doors: every
/// silo serves every key, wherever its shard is active, and a graceful leave under writers loses and fails nothing.
/// </summary>
public sealed class FrontDoorClusterTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Keys_written_through_each_silo_are_read_through_every_other_and_keyspace_commands_cover_the_cluster()
    {
        await using var cluster = await TestCluster.StartAsync(3);
        var clients = await Task.WhenAll(cluster.Silos.Select(silo => silo.ConnectAsync()));
        try
        {
            for (var writer = 0; writer < clients.Length; writer++)
            {
                for (var i = 0; i < 100; i++)
                {
                    RespAssert.Ok(await clients[writer].CallAsync("SET", $"door:{writer}:{i}", $"v{writer}.{i}"));
                }
            }

            foreach (var reader in clients)
            {
                for (var writer = 0; writer < clients.Length; writer++)
                {
                    for (var i = 0; i < 100; i++)
                    {
                        Assert.Equal($"v{writer}.{i}", (await reader.CallAsync("GET", $"door:{writer}:{i}")).AsString());
                    }
                }

                // Multi-key commands split by shard and merge; keyspace commands visit every shard.
                var mget = await reader.CallAsync("MGET", "door:0:1", "door:1:2", "absent", "door:2:3");
                Assert.Equal(["v0.1", "v1.2", null, "v2.3"], mget.Items.Select(item => item.AsString()));
                Assert.Equal(300, (await reader.CallAsync("DBSIZE")).Integer);
                Assert.Equal(100, (await reader.CallAsync("KEYS", "door:1:*")).Items.Count);
                Assert.Equal(3, (await reader.CallAsync("EXISTS", "door:0:0", "door:1:0", "door:2:0", "nope")).Integer);
            }

            // CUBBY.OWNER names the silo whose front door serves the shard directly, the same through every silo.
            var owners = await Task.WhenAll(clients.Select(client => client.CallAsync("CUBBY.OWNER", "door:0:0")));
            Assert.Single(owners.Select(owner => owner.Items[1].AsString()).Distinct());
            Assert.Contains(owners[0].Items[1].AsString(), cluster.Silos.Select(silo => $"127.0.0.1:{silo.RespEndPoint.Port}"));

            Assert.Equal(2, (await clients[2].CallAsync("DEL", "door:0:0", "door:1:0")).Integer);
            RespAssert.Ok(await clients[1].CallAsync("FLUSHALL"));
            Assert.All(await Task.WhenAll(clients.Select(client => client.CallAsync("DBSIZE"))), size => Assert.Equal(0, size.Integer));
        }
        finally
        {
            foreach (var client in clients)
            {
                await client.DisposeAsync();
            }
        }
    }

    [Fact]
    public async Task A_silo_leaving_gracefully_under_eight_writers_fails_no_call_and_loses_no_acknowledged_write()
    {
        await using var cluster = await TestCluster.StartAsync(3);
        var leaving = cluster.Silos[2];
        var survivors = cluster.Silos.Take(2).ToArray();
        var acknowledged = new ConcurrentDictionary<string, string>();
        var failures = new ConcurrentQueue<string>();
        long writes = 0;
        long longestTicks = 0;
        using var stop = new CancellationTokenSource();
        var writers = Enumerable.Range(0, 8).Select(worker => Task.Run(async () =>
        {
            await using var client = await survivors[worker % 2].ConnectAsync();
            for (var round = 0; !stop.IsCancellationRequested; round++)
            {
                var key = $"leave:{worker}:{round % 500}";
                var value = $"{worker}.{round}";
                var clock = Stopwatch.StartNew();
                var reply = await client.CallAsync("SET", key, value);
                var elapsed = clock.Elapsed.Ticks;
                if (elapsed > Interlocked.Read(ref longestTicks))
                {
                    Interlocked.Exchange(ref longestTicks, elapsed);
                }

                if (reply.AsString() == "OK")
                {
                    acknowledged[key] = value;
                    Interlocked.Increment(ref writes);
                }
                else
                {
                    failures.Enqueue($"{key}: {reply}");
                }
            }
        })).ToArray();

        await Cubby.Tests.Client.Poll.UntilAsync(() => acknowledged.Count > 2_000, TimeSpan.FromSeconds(30), "writes before the leave");
        await cluster.StopAsync(leaving);
        await cluster.WaitForActiveSilosAsync(2);
        var writesAtStop = Interlocked.Read(ref writes);
        await Cubby.Tests.Client.Poll.UntilAsync(() => Interlocked.Read(ref writes) > writesAtStop + 1_000, TimeSpan.FromSeconds(30), "writes after the leave");
        await stop.CancelAsync();
        await Task.WhenAll(writers);

        output.WriteLine($"graceful leave under 8 writers: {acknowledged.Count} keys acknowledged, {failures.Count} failed calls, longest call {TimeSpan.FromTicks(longestTicks).TotalMilliseconds:0} ms");
        Assert.True(failures.IsEmpty, string.Join("; ", failures.Take(10)));
        await using var reader = await survivors[0].ConnectAsync();
        foreach (var (key, value) in acknowledged)
        {
            Assert.Equal(value, (await reader.CallAsync("GET", key)).AsString());
        }
    }

    [Fact]
    public async Task A_shard_of_100_MiB_moves_off_a_stopping_silo_with_every_entry()
    {
        const int Values = 100;
        const int ValueBytes = 1 << 20;
        await using var cluster = await TestCluster.StartAsync(2);
        var leaving = cluster.Silos[1];
        await using var writer = await cluster.Primary.ConnectAsync();
        var tag = await ShardTagOnAsync(writer, leaving);
        for (var i = 0; i < Values; i++)
        {
            RespAssert.Ok(await writer.CallAsync("SET", $"{{{tag}}}:{i}", BigValue(i, ValueBytes)));
        }

        var clock = Stopwatch.StartNew();
        await cluster.StopAsync(leaving);
        output.WriteLine($"a {Values} MiB shard moved off a stopping silo; the stop took {clock.Elapsed.TotalSeconds:0.0} s");

        Assert.Equal($"127.0.0.1:{cluster.Primary.RespEndPoint.Port}", (await writer.CallAsync("CUBBY.OWNER", $"{{{tag}}}:0")).Items[1].AsString());
        for (var i = 0; i < Values; i++)
        {
            Assert.True(BigValue(i, ValueBytes) == (await writer.CallAsync("GET", $"{{{tag}}}:{i}")).AsString(), $"value {i} of the big shard did not survive the move");
        }
    }

    /// <summary>A hash tag whose shard is active on <paramref name="silo"/>.</summary>
    private static async Task<string> ShardTagOnAsync(RespTestClient client, TestSilo silo)
    {
        var endpoint = $"127.0.0.1:{silo.RespEndPoint.Port}";
        for (var i = 0; ; i++)
        {
            if ((await client.CallAsync("CUBBY.OWNER", $"{{big{i}}}")).Items[1].AsString() == endpoint)
            {
                return $"big{i}";
            }
        }
    }

    private static string BigValue(int index, int length) => new((char)('a' + index % 26), length);
}
