using System.Text;
using Cubby.Client;
using Cubby.Client.Caching;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Client;

/// <summary>
/// The synchronous <see cref="IDistributedCache"/> methods must not need the thread pool: with every pool thread
/// blocked in them and the pool unable to grow, they still complete. A sync-over-async implementation deadlocks here
/// (its continuations queue behind the blocked work items) until its calls time out.
/// </summary>
[Collection(ThreadPoolStarvationCollection.Name)]
public sealed class ThreadPoolStarvationTests
{
    private const int CallsPerWorkItem = 100;

    [Fact]
    public async Task Sync_calls_from_every_pool_thread_complete_while_the_pool_cannot_grow()
    {
        // The silo runs in a process of its own, so only the client depends on this process's thread pool.
        using var silo = await SiloProcess.StartAsync();
        var options = new CubbyClientOptions { OperationTimeout = TimeSpan.FromSeconds(20), ConnectTimeout = TimeSpan.FromSeconds(20) };
        options.Endpoints.Add($"127.0.0.1:{silo.RespPort}");

        // A fresh client: even connecting happens while the pool is saturated.
        using var client = new CubbyClient(Options.Create(options));
        var cache = new CubbyDistributedCache(client);
        var entryOptions = new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromMinutes(1) };

        ThreadPool.GetMaxThreads(out var maxWorkers, out var maxCompletionPorts);
        ThreadPool.GetMinThreads(out var minWorkers, out _);
        // The cap leaves room for pool threads the test host itself keeps blocked; more work items than it allows
        // threads keep every thread the pool may have busy in the cache's sync methods, with the rest waiting.
        var cap = Math.Max(minWorkers, ThreadPool.ThreadCount) + Environment.ProcessorCount;
        var workItems = Math.Max(Environment.ProcessorCount * 4, cap + Environment.ProcessorCount);
        using var done = new CountdownEvent(workItems);
        var failures = new System.Collections.Concurrent.ConcurrentQueue<Exception>();
        long pendingWhenQueued;
        bool allDone;
        Assert.True(ThreadPool.SetMaxThreads(cap, maxCompletionPorts), "could not cap the thread pool");
        try
        {
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

            pendingWhenQueued = ThreadPool.PendingWorkItemCount;

            // Blocks this thread (not a task): nothing here needs the pool to observe completion.
            allDone = done.Wait(TimeSpan.FromSeconds(30));
        }
        finally
        {
            ThreadPool.SetMaxThreads(maxWorkers, maxCompletionPorts);
        }

        Assert.True(allDone, $"{done.CurrentCount} of {workItems} work items were still blocked after 30 s");
        Assert.Empty(failures);
        Assert.True(pendingWhenQueued > 0, "the pool was never saturated: no work item had to wait for a thread");
        Assert.Null(cache.Get("pool:0:0"));
        Assert.Equal(Encoding.UTF8.GetBytes($"0:{CallsPerWorkItem - 1}"), cache.Get($"pool:0:{(CallsPerWorkItem - 1) % 4}"));
    }
}
