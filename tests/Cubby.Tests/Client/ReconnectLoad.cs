using System.Collections.Concurrent;
using System.Text;
using Cubby.Client;
using Microsoft.Extensions.Caching.Distributed;

namespace Cubby.Tests.Client;

/// <summary>Callers in a loop: each writes and reads back its own values, counting what happened.</summary>
internal sealed class ReconnectLoad
{
    private static readonly TimeSpan HangLimit = TimeSpan.FromSeconds(15);
    private volatile bool _stopped;
    private int _successes;
    private int _failures;
    private int _hangs;

    public int Successes => Volatile.Read(ref _successes);

    public int Failures => Volatile.Read(ref _failures);

    public int Hangs => Volatile.Read(ref _hangs);

    public ConcurrentQueue<Exception> Unexpected { get; } = new();

    public void Stop() => _stopped = true;

    public async Task RunAsyncWorker(ICubbyClient client, int worker)
    {
        for (var round = 0; !_stopped; round++)
        {
            var key = $"worker:{worker}:{round % 16}";
            var value = Encoding.UTF8.GetBytes($"{worker}/{round}");
            var call = Task.Run(async () =>
            {
                await client.PutAsync(key, value);
                Assert.Equal(value, await client.GetAsync(key));
            });
            if (await Task.WhenAny(call, Task.Delay(HangLimit)) != call)
            {
                Interlocked.Increment(ref _hangs);
                return;
            }

            Record(call.Exception?.InnerException);
            if (call.IsFaulted)
            {
                // Don't spin while the silo is down; the client's own backoff bounds how soon calls can succeed.
                await Task.Delay(5);
            }
        }
    }

    public void RunSyncWorker(IDistributedCache cache, int worker)
    {
        var options = new DistributedCacheEntryOptions();
        for (var round = 0; !_stopped; round++)
        {
            var key = $"worker:{worker}:{round % 16}";
            var value = Encoding.UTF8.GetBytes($"{worker}/{round}");
            var started = Environment.TickCount64;
            Exception? error = null;
            try
            {
                cache.Set(key, value, options);
                Assert.Equal(value, cache.Get(key));
            }
            catch (Exception exception)
            {
                error = exception;
            }

            // Sync calls are bounded by the connect and operation timeouts (2 s each) by construction.
            if (Environment.TickCount64 - started > HangLimit.TotalMilliseconds)
            {
                Interlocked.Increment(ref _hangs);
            }

            Record(error);
            if (error is not null)
            {
                Thread.Sleep(5);
            }
        }
    }

    private void Record(Exception? error)
    {
        if (error is null)
        {
            Interlocked.Increment(ref _successes);
        }
        else if (error is CubbyConnectionException or TimeoutException)
        {
            Interlocked.Increment(ref _failures);
        }
        else
        {
            Unexpected.Enqueue(error);
        }
    }
}
