namespace Cubby.Client.Routing;

/// <summary>
/// Reads the cluster view again on request, on a thread of its own: its reads block (so a refresh, and synchronous
/// callers waiting for it, never need the thread pool), and no connection's reader thread ever waits for one.
/// Requests coalesce: callers join the run under way, or the one queued; runs start at most every
/// <see cref="MinInterval"/>.
/// </summary>
internal sealed class ViewRefresher : IDisposable
{
    /// <summary>The least time between two runs, so a failing cluster is not asked for its view in a loop.</summary>
    public static readonly TimeSpan MinInterval = TimeSpan.FromMilliseconds(200);

    private readonly Func<Exception?> _refresh;
    private readonly TimeProvider _time;
    private readonly Lock _sync = new();
    private readonly ManualResetEventSlim _wake = new(false);
    private readonly ManualResetEventSlim _disposedSignal = new(false);
    private readonly Thread _thread;
    private RefreshCycle? _queued;
    private RefreshCycle? _running;
    private long _lastStarted;
    private bool _disposed;

    /// <param name="refresh">Reads and installs the view; returns why it could not, or null.</param>
    /// <param name="time">The clock the interval between runs is measured with.</param>
    public ViewRefresher(Func<Exception?> refresh, TimeProvider time)
    {
        _refresh = refresh;
        _time = time;
        _thread = new Thread(Run) { IsBackground = true, Name = "Cubby view refresher" };
        _thread.Start();
    }

    /// <summary>The run under way, or else the one queued, or else a new one queued now.</summary>
    public RefreshCycle Request()
    {
        lock (_sync)
        {
            if ((_running ?? _queued) is { } joined)
            {
                return joined;
            }

            var cycle = _queued = new RefreshCycle();
            if (_disposed)
            {
                cycle.Finish(new ObjectDisposedException(nameof(ViewRefresher)));
            }

            _wake.Set();
            return cycle;
        }
    }

    public void Dispose()
    {
        lock (_sync)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
        }

        _disposedSignal.Set();
        _wake.Set();
        _thread.Join(TimeSpan.FromSeconds(5));
        lock (_sync)
        {
            _queued?.Finish(new ObjectDisposedException(nameof(ViewRefresher)));
            _queued = null;
        }
    }

    private void Run()
    {
        while (true)
        {
            _wake.Wait();
            if (_disposedSignal.IsSet)
            {
                return;
            }

            // The clock decides how long is left; the wait itself is real, so a paused test clock cannot stall it.
            var wait = _lastStarted == 0 ? TimeSpan.Zero : MinInterval - _time.GetElapsedTime(_lastStarted);
            if (wait > TimeSpan.Zero && _disposedSignal.Wait(wait))
            {
                return;
            }

            RefreshCycle? cycle;
            lock (_sync)
            {
                _wake.Reset();
                cycle = _running = _queued;
                _queued = null;
            }

            if (cycle is null)
            {
                continue;
            }

            _lastStarted = _time.GetTimestamp();
            Exception? failure;
            try
            {
                failure = _refresh();
            }
            catch (Exception exception)
            {
                failure = exception;
            }

            lock (_sync)
            {
                _running = null;
            }

            cycle.Finish(failure);
        }
    }
}
