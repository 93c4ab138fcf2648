using System.Text;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;
using Xunit.Abstractions;

namespace Cubby.Tests.Client;

/// <summary>
/// The synchronous <see cref="IDistributedCache"/> methods, called from more thread-pool work items than the pool has
/// threads, all complete, and promptly: each blocked caller has the pool replace its thread at once, so Orleans has the
/// threads it needs to send the calls and receive their replies. (A pool capped below the blocked callers would stall
/// them; the pool's default cap is far above any such count.)
/// </summary>
[Collection(ThreadPoolStarvationCollection.Name)]
public sealed class ThreadPoolStarvationTests(ITestOutputHelper output)
{
    private const int CallsPerWorkItem = 20;
    private const int ConcurrentGets = 200;
    private const int Keys = 100;

    /// <summary>
    /// What a web app does when every request thread reads the cache synchronously at once. Before the pool replaced
    /// blocked callers, 200 such Gets took 47 s on this machine kind (and a RedisCache on Redis about 10 s).
    /// </summary>
    [Fact]
    public async Task Two_hundred_more_sync_gets_than_pool_threads_finish_within_five_seconds()
    {
        using var silo = await SiloProcess.StartAsync();
        var services = new ServiceCollection();
        services.AddCubbyClient(o => o.Endpoints.Add(silo.Gateway)).AddCubbyDistributedCache();
        await using var app = services.BuildServiceProvider();
        var cache = app.GetRequiredService<IDistributedCache>();
        for (var key = 0; key < Keys; key++)
        {
            await cache.SetAsync($"starve:{key}", Encoding.UTF8.GetBytes($"value {key}"));
            Assert.NotNull(await cache.GetAsync($"starve:{key}"));
        }

        // Every pool thread there is, and 200 more, blocked in a Get at once. Not disposed, as below: a Get still running
        // after a failed wait must not signal a disposed event.
        var gets = ThreadPool.ThreadCount + ConcurrentGets;
        var done = new CountdownEvent(gets);
        var wrong = new System.Collections.Concurrent.ConcurrentQueue<string>();
        var clock = System.Diagnostics.Stopwatch.StartNew();
        for (var get = 0; get < gets; get++)
        {
            var key = get % Keys;
            ThreadPool.UnsafeQueueUserWorkItem(
                _ =>
                {
                    try
                    {
                        var read = cache.Get($"starve:{key}");
                        if (read is null || Encoding.UTF8.GetString(read) != $"value {key}")
                        {
                            wrong.Enqueue($"starve:{key} read {(read is null ? "null" : Encoding.UTF8.GetString(read))}");
                        }
                    }
                    catch (Exception exception)
                    {
                        wrong.Enqueue($"starve:{key}: {exception.GetType().Name}: {exception.Message}");
                    }
                    finally
                    {
                        done.Signal();
                    }
                },
                null);
        }

        var pendingWhenQueued = ThreadPool.PendingWorkItemCount;
        var allDone = done.Wait(TimeSpan.FromSeconds(5));
        var elapsed = clock.Elapsed;

        Assert.True(allDone, $"{done.CurrentCount} of {gets} synchronous Gets were still waiting after 5 s");
        Assert.True(wrong.IsEmpty, string.Join("; ", wrong.Take(5)));
        Assert.True(pendingWhenQueued > 0, "the pool was never saturated: no Get had to wait for a thread");
        output.WriteLine($"{gets} synchronous Gets from pool threads: {elapsed.TotalSeconds:0.00} s");
    }

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
