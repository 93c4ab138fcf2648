using Cubby.Client.Filling;
using Cubby.Client.NearCaching;
using Microsoft.Extensions.Caching.Hybrid;

namespace Cubby.Client.Hybrid;

/// <summary>
/// One run per missing key in this instance, shared by its callers: the local-only store, a near-cache entry not yet
/// decoded, the cluster read, then one factory run per key across the cluster (<see cref="ClusterFill"/>) and the write.
/// </summary>
internal sealed partial class CubbyHybridCache
{
    private async ValueTask<T> JoinAsync<TState, T>(
        string key, TState state, Func<TState, CancellationToken, ValueTask<T>> factory, HybridCacheEntryOptions? options, HybridCacheEntryFlags flags, IEnumerable<string>? tags, CancellationToken cancellationToken)
    {
        var tagList = TagsOf(tags);
        while (true)
        {
            var flight = _flights.GetOrAdd(key, static (k, client) => new Flight<T>(client.Mark(k)), _client);
            if (flight is not Flight<T> typed)
            {
                throw new InvalidOperationException($"HybridCache is already reading or creating '{key}' as another type than {typeof(T).Name}.");
            }

            // A run that began before the key changed may return what the change replaced: a caller who came after the
            // change starts its own (the change's write was answered only once this process heard of it).
            if (!_client.Unchanged(typed.Mark))
            {
                _flights.TryUpdate(key, new Flight<T>(_client.Mark(key)), flight);
                continue;
            }

            if (!typed.TryJoin())
            {
                // It ended (every caller cancelled) between being found and joined.
                _flights.TryRemove(KeyValuePair.Create(key, flight));
                continue;
            }

            if (typed.Start())
            {
                typed.Run(RunAsync(typed, key, state, factory, options, flags, tagList));
            }
            else
            {
                _client.Fills.JoinedWait();
            }

            var (value, copy) = await typed.WaitAsync(cancellationToken).ConfigureAwait(false);
            return copy is null || ImmutableTypes.Of<T>() ? value : copy.Read<T>(_serializers);
        }
    }

    private async Task<(T Value, LocalCopy? Copy)> RunAsync<TState, T>(
        Flight<T> flight, string key, TState state, Func<TState, CancellationToken, ValueTask<T>> factory, HybridCacheEntryOptions? options, HybridCacheEntryFlags flags, IReadOnlyList<string> tags)
    {
        try
        {
            var token = flight.Token;
            if ((flags & HybridCacheEntryFlags.DisableLocalCacheRead) == 0 && await LocalOnlyAsync<T>(key, token).ConfigureAwait(false) is { } local)
            {
                _client.Fills.LocalHit();
                return (local.Read<T>(_serializers), local);
            }

            var keep = (flags & HybridCacheEntryFlags.DisableLocalCacheWrite) == 0;

            // Kept without this call's decoding (read through the client, for another type, or its tags' epochs not
            // kept): decoded from the kept bytes, not read again.
            if ((flags & HybridCacheEntryFlags.DisableLocalCacheRead) == 0 && _client.TryGetKept(key, out var kept)
                && await CurrentCopyAsync<T>(kept.Value, options, token).ConfigureAwait(false) is { } keptCopy)
            {
                if (keep)
                {
                    kept.Decoded = keptCopy;
                }

                _client.Fills.LocalHit();
                return (keptCopy.Read<T>(_serializers), keptCopy);
            }

            var readsCluster = (flags & HybridCacheEntryFlags.DisableDistributedCacheRead) == 0;
            byte[]? stored = null;
            if (readsCluster && (stored = await _client.ReadAsync(key, keep, token).ConfigureAwait(false)) is not null
                && await CurrentCopyAsync<T>(stored, options, token).ConfigureAwait(false) is { } copy)
            {
                if (keep && _client.TryGetKept(key, out var entry) && ReferenceEquals(entry.Value, stored))
                {
                    entry.Decoded = copy;
                }

                _client.Fills.RemoteHit();
                return (copy.Read<T>(_serializers), copy);
            }

            if ((flags & HybridCacheEntryFlags.DisableUnderlyingData) != 0)
            {
                _client.Fills.Miss();
                return (default!, null);
            }

            LocalCopy? created = null;
            async ValueTask<T> CreateAsync(CancellationToken token) => await factory(state, token).ConfigureAwait(false);
            async ValueTask StoreCreatedAsync(T value, CancellationToken token)
            {
                var payload = await EncodeAsync(value, tags, token).ConfigureAwait(false);
                await Store(key, value, payload, options, flags, token).ConfigureAwait(false);
                created = payload is null ? null : LocalCopy.Written(payload, value, LocalDeadline(options), _epochs.Written) ?? LocalCopy.Of<T>(payload, _serializers, LocalDeadline(options), _epochs.Written);
            }

            // Read the cluster and write it: one run across the cluster; otherwise one in this instance.
            if (!readsCluster || (flags & HybridCacheEntryFlags.DisableDistributedCacheWrite) != 0)
            {
                _client.Fills.Miss();
                _client.Fills.FactoryRan();
                var value = await CreateAsync(token).ConfigureAwait(false);
                await StoreCreatedAsync(value, token).ConfigureAwait(false);
                return (value, created);
            }

            var filled = await ClusterFill.RunAsync(
                _client,
                key,
                async (found, _, token) => await CurrentCopyAsync<T>(found, options, token).ConfigureAwait(false) is { } copy ? (true, copy.Read<T>(_serializers)) : (false, default!),
                CreateAsync,
                StoreCreatedAsync,
                present: stored is not null,
                token).ConfigureAwait(false);
            return (filled, created);
        }
        finally
        {
            _flights.TryRemove(KeyValuePair.Create(key, (object)flight));
        }
    }

    /// <summary>The copy of a stored entry when it is one this cache wrote and its tags' epochs still hold.</summary>
    private async ValueTask<LocalCopy?> CurrentCopyAsync<T>(byte[] stored, HybridCacheEntryOptions? options, CancellationToken cancellationToken) =>
        LocalCopy.Of<T>(stored, _serializers, LocalDeadline(options), _epochs.Written) is { } copy && await copy.Epochs.IsCurrentAsync(_epochs, cancellationToken).ConfigureAwait(false) ? copy : null;

    /// <summary>
    /// A run shared by this instance's callers of one key. Its token is cancelled once every caller stopped waiting, as
    /// HybridCache's is; a caller's own token stops only its wait. What the run ends with reaches each of its callers.
    /// </summary>
    private sealed class Flight<T>(KeyMark? mark) : IDisposable
    {
        private readonly CancellationTokenSource _cancel = new();
        private readonly TaskCompletionSource<(T, LocalCopy?)> _result = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _waiting;
        private int _started;

        public CancellationToken Token => _cancel.Token;

        /// <summary>Where the key's invalidations stood when the run began.</summary>
        public KeyMark? Mark => mark;

        /// <summary>Counts one more caller; false when every caller before had stopped waiting and the run was cancelled.</summary>
        public bool TryJoin()
        {
            var waiting = Volatile.Read(ref _waiting);
            while (waiting >= 0)
            {
                var seen = Interlocked.CompareExchange(ref _waiting, waiting + 1, waiting);
                if (seen == waiting)
                {
                    return true;
                }

                waiting = seen;
            }

            return false;
        }

        public bool Start() => Interlocked.Exchange(ref _started, 1) == 0;

        public void Run(Task<(T, LocalCopy?)> run) =>
            run.ContinueWith(
                static (task, state) =>
                {
                    var flight = (Flight<T>)state!;
                    var result = flight._result;
                    flight.Dispose();
                    if (task.IsCompletedSuccessfully)
                    {
                        result.TrySetResult(task.Result);
                    }
                    else if (task.IsCanceled)
                    {
                        result.TrySetCanceled();
                    }
                    else
                    {
                        result.TrySetException(task.Exception!.InnerExceptions);
                    }
                },
                this,
                CancellationToken.None,
                TaskContinuationOptions.ExecuteSynchronously,
                TaskScheduler.Default);

        public async Task<(T, LocalCopy?)> WaitAsync(CancellationToken cancellationToken)
        {
            try
            {
                return await _result.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested && !_result.Task.IsCompleted)
            {
                // The last caller to stop waiting cancels the run; -1 keeps late callers from joining it.
                if (Interlocked.Decrement(ref _waiting) == 0 && Interlocked.CompareExchange(ref _waiting, -1, 0) == 0)
                {
                    try
                    {
                        await _cancel.CancelAsync().ConfigureAwait(false);
                    }
                    catch (ObjectDisposedException)
                    {
                        // The run ended meanwhile.
                    }
                }

                throw;
            }
        }

        public void Dispose() => _cancel.Dispose();
    }
}
