using System.Diagnostics;
using Cubby.Client;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Load.NearCache;

/// <summary>
/// When another client's near cache drops its copy, against the write's acknowledgment: a near-cache client keeps a key,
/// a second client writes it, and the time runs from the write's answer to the moment the first applied the
/// invalidation (negative when it came first: the shard answers a write once the near caches holding its key took
/// the invalidation). Each sample also has how long the write took, a near cache holding its key.
/// </summary>
internal static class PushDelay
{
    public static async Task<List<(double AfterAcknowledgment, double Write)>> MeasureAsync(int gatewayPort, NearCacheCoherence coherence, int rounds, CancellationToken stop = default)
    {
        var readerServices = Client(gatewayPort, coherence);
        await using var readerStops = AppServices.Stopping(readerServices);
        var writerServices = Client(gatewayPort, coherence: null);
        await using var writerStops = AppServices.Stopping(writerServices);
        var reader = (CubbyClient)readerServices.GetRequiredService<ICubbyClient>();
        var writer = writerServices.GetRequiredService<ICubbyClient>();
        var near = reader.NearCache!;
        using var applied = new SemaphoreSlim(0);
        long arrivedAt = 0;
        near.Applied = () =>
        {
            Volatile.Write(ref arrivedAt, Stopwatch.GetTimestamp());
            applied.Release();
        };

        var keys = Enumerable.Range(0, 100).Select(static i => $"delay:{i}").ToArray();
        foreach (var key in keys)
        {
            await writer.PutAsync(key, "v"u8.ToArray(), cancellationToken: CancellationToken.None).ConfigureAwait(false);
        }

        var samples = new List<(double AfterAcknowledgment, double Write)>();
        var warmUp = Math.Min(200, rounds / 10);
        for (var i = 0; i < rounds + warmUp && !stop.IsCancellationRequested; i++)
        {
            var key = keys[i % keys.Length];
            await KeepAsync(reader, near, key).ConfigureAwait(false);
            while (applied.CurrentCount > 0)
            {
                await applied.WaitAsync(CancellationToken.None).ConfigureAwait(false);
            }

            var sent = Stopwatch.GetTimestamp();
            await writer.PutAsync(key, "w"u8.ToArray(), cancellationToken: CancellationToken.None).ConfigureAwait(false);
            var acknowledged = Stopwatch.GetTimestamp();
            if (!await applied.WaitAsync(TimeSpan.FromSeconds(5), CancellationToken.None).ConfigureAwait(false))
            {
                throw new HarnessException($"no invalidation of {key} reached the near cache within 5 s");
            }

            if (i >= warmUp)
            {
                samples.Add((Stopwatch.GetElapsedTime(acknowledged, Volatile.Read(ref arrivedAt)).TotalMicroseconds, Stopwatch.GetElapsedTime(sent, acknowledged).TotalMicroseconds));
            }
        }

        return samples;
    }

    private static async Task KeepAsync(CubbyClient reader, Cubby.Client.NearCaching.NearCache near, string key)
    {
        var deadline = Stopwatch.GetTimestamp() + (Stopwatch.Frequency * 10);
        while (true)
        {
            var hits = near.Metrics.Hits;
            await reader.GetAsync(key).ConfigureAwait(false);
            if (near.Metrics.Hits > hits)
            {
                return;
            }

            if (Stopwatch.GetTimestamp() > deadline)
            {
                throw new HarnessException($"{key} was never served from the near cache");
            }

            await Task.Delay(1).ConfigureAwait(false);
        }
    }

    private static ServiceProvider Client(int gatewayPort, NearCacheCoherence? coherence) =>
        new ServiceCollection()
            .AddCubbyClient(o =>
            {
                o.Endpoints.Add($"127.0.0.1:{gatewayPort}");
                o.NearCache.Enabled = coherence is not null;
                o.NearCache.Coherence = coherence ?? o.NearCache.Coherence;
            })
            .Services.BuildServiceProvider();
}
