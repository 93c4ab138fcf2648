using System.Text;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

/// <summary>
/// The synchronous <see cref="IDistributedCache"/> methods, called from more thread-pool work items than the pool has
/// threads, all complete: each blocked caller tells the pool it is blocked, so the pool adds the threads Orleans needs
/// to receive their replies. (Orleans reads its connections on the pool, so a pool capped below the blocked callers
/// would stall them; the pool's default cap is far above any such count.)
/// </summary>
[Collection(ThreadPoolStarvationCollection.Name)]
public sealed class ThreadPoolStarvationTests
{
    private const int CallsPerWorkItem = 20;

    [Fact]
    public async Task Sync_calls_from_more_work_items_than_pool_threads_all_complete()
    {
        // The silo runs in a process of its own, so only the client depends on this process's thread pool.
        using var silo = await SiloProcess.StartAsync();
        var services = new ServiceCollection();
        services.AddCubbyClient(o =>
        {
            o.Endpoints.Add(silo.Gateway);
            o.OperationTimeout = TimeSpan.FromSeconds(30);
            o.ConnectTimeout = TimeSpan.FromSeconds(90);
        }).AddCubbyDistributedCache();
        await using var app = services.BuildServiceProvider();

        // A fresh client: even connecting happens while the pool is saturated.
        var cache = app.GetRequiredService<IDistributedCache>();
        var entryOptions = new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromMinutes(1) };
        ThreadPool.GetMinThreads(out var minWorkers, out _);
        var workItems = Math.Max(minWorkers, ThreadPool.ThreadCount) * 2 + 32;
        // Not disposed: if the wait below times out, work items still running signal it after the test has ended, and
        // signalling a disposed event would crash the test host instead of failing this test.
        var done = new CountdownEvent(workItems);
        var failures = new System.Collections.Concurrent.ConcurrentQueue<Exception>();
        for (var item = 0; item < workItems; item++)
        {
            var worker = item;
            ThreadPool.UnsafeQueueUserWorkItem(
                _ =>
                {
                    try
                    {
                        for (var call = 0; call < CallsPerWorkItem; call++)
                        {
                            var key = $"pool:{worker}:{call % 4}";
                            var value = Encoding.UTF8.GetBytes($"{worker}:{call}");
                            cache.Set(key, value, entryOptions);
                            var read = cache.Get(key);
                            if (read is null || !read.AsSpan().SequenceEqual(value))
                            {
                                throw new InvalidOperationException($"{key} read back {(read is null ? "null" : Encoding.UTF8.GetString(read))}, wrote {worker}:{call}");
                            }

                            cache.Refresh(key);
                        }

                        cache.Remove($"pool:{worker}:0");
                    }
                    catch (Exception exception)
                    {
                        failures.Enqueue(exception);
                    }
                    finally
                    {
                        done.Signal();
                    }
                },
                null);
        }

        var pendingWhenQueued = ThreadPool.PendingWorkItemCount;

        // Blocks this thread (not a task): nothing here needs the pool to observe completion.
        var allDone = done.Wait(TimeSpan.FromSeconds(90));

        Assert.True(allDone, $"{done.CurrentCount} of {workItems} work items were still blocked after 90 s");
        Assert.Empty(failures);
        Assert.True(pendingWhenQueued > 0, "the pool was never saturated: no work item had to wait for a thread");
        Assert.Null(cache.Get("pool:0:0"));
        Assert.Equal(Encoding.UTF8.GetBytes($"0:{CallsPerWorkItem - 1}"), cache.Get($"pool:0:{(CallsPerWorkItem - 1) % 4}"));
    }
}
