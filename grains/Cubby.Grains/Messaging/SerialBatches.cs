namespace Cubby.Grains.Messaging;

/// <summary>
/// Items for one peer, sent one batch at a time: what is posted while a batch is in flight goes together in the next,
/// in the order posted, so the peer sees them in that order and many posts share a message under load. Sending starts
/// on a pool thread, never under the poster's lock or a shard's turn. <paramref name="send"/> handles its own failures.
/// </summary>
internal sealed class SerialBatches<T>(Func<List<T>, Task> send)
{
    private readonly Lock _gate = new();
    private List<T> _queued = [];
    private bool _sending;

    /// <summary>Items waiting for the next batch.</summary>
    public int Count
    {
        get
        {
            lock (_gate)
            {
                return _queued.Count;
            }
        }
    }

    /// <summary>Whether nothing is being sent or waits to be.</summary>
    public bool Idle
    {
        get
        {
            lock (_gate)
            {
                return !_sending;
            }
        }
    }

    /// <summary>Queues <paramref name="item"/> behind everything posted before.</summary>
    public void Post(T item) => Queue(item, replace: false);

    /// <summary>Drops what waits and queues <paramref name="item"/> in its place (one item that stands for all of them).</summary>
    public void Replace(T item) => Queue(item, replace: true);

    private void Queue(T item, bool replace)
    {
        lock (_gate)
        {
            if (replace)
            {
                _queued.Clear();
            }

            _queued.Add(item);
            if (_sending)
            {
                return;
            }

            _sending = true;
        }

        _ = Task.Run(SendAsync);
    }

    private async Task SendAsync()
    {
        while (true)
        {
            List<T> batch;
            lock (_gate)
            {
                if (_queued.Count == 0)
                {
                    _sending = false;
                    return;
                }

                batch = _queued;
                _queued = [];
            }

            await send(batch).ConfigureAwait(false);
        }
    }
}
