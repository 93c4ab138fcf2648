using System.Runtime.CompilerServices;
using System.Text;
using System.Threading.Tasks.Sources;
using Cubby.Client.Gateways;
using Cubby.Client.NearCaching;
using Cubby.Sharding;
using Orleans.Runtime;

namespace Cubby.Client.Shards;

/// <summary>
/// The operations on their way to one gateway's batch entry point (<see cref="IShardBatchService"/>). At most
/// <see cref="MaxInFlight"/> batches travel at once and what arrives meanwhile goes in the next, so a lone call leaves at
/// once and concurrent calls share messages. A batch goes only while the Orleans client counts the gateway live
/// (<see cref="LiveGateways"/>). A batch that cannot go or fails as a whole (its silo stopping or gone) answers each of
/// its operations, and each one waiting, <see cref="ShardOperationStatus.Failed"/>, for the callers to run them as single
/// calls, and the gateway takes no batch for <see cref="FailurePause"/>. With a near cache, batches go with its
/// <paramref name="link"/> to this silo, so the silo tracks their <see cref="ShardOperationKind.TrackedGet"/> reads and
/// answers their writes of keys the near cache holds with the new entries for it to keep
/// (<see cref="ShardOperationResult.WriterCopyAt"/>).
/// </summary>
internal sealed class GatewayBatcher(SiloAddress gateway, IShardBatchService service, LiveGateways live, TrackerLink? link = null)
{
    /// <summary>The most batches in flight to a lone gateway: two, so one can be on its way while the silo runs the other.</summary>
    public const int LoneGatewayInFlight = 2;

    /// <summary>Operations per message, so one message does not hold the silo's turn for long or grow without bound.</summary>
    private const int MaxOperations = 256;

    /// <summary>How long a gateway whose batch failed takes no more: long enough for the client to learn the silo left.</summary>
    private static readonly TimeSpan FailurePause = TimeSpan.FromSeconds(1);

    private readonly Lock _gate = new();
    private readonly List<PendingOperation> _waiting = [];
    private readonly Stack<Flight> _idle = new(LoneGatewayInFlight);
    private int _inFlight;
    private int _maxInFlight = LoneGatewayInFlight;
    private long _batchesSent;
    private long _batchesFailed;
    private long _operationsSent;
    private long _operationsRun;
    private long _failedAt;

    /// <summary>The gateway's address.</summary>
    public SiloAddress Gateway => gateway;

    /// <summary>
    /// The most batches in flight at once: <see cref="LoneGatewayInFlight"/> while this gateway holds every shard the
    /// client knows of, one when others hold some (<see cref="SiloBatches"/> sets it). Then the other gateways' batches
    /// keep the cluster busy while an answer travels, and what waits here makes one larger batch instead of two small
    /// ones: on three silo processes, 14 Gets to a batch instead of 8 and a tenth more client ops/s; replicated writes,
    /// whose every batch also costs messages to the replicas, a fifth more.
    /// </summary>
    public int MaxInFlight
    {
        get => Volatile.Read(ref _maxInFlight);
        set => Volatile.Write(ref _maxInFlight, Math.Clamp(value, 1, LoneGatewayInFlight));
    }

    /// <summary>Batches sent, for tests and diagnostics.</summary>
    public long BatchesSent => Interlocked.Read(ref _batchesSent);

    /// <summary>Batches that went unanswered (timed out, or their gateway failed), for tests and diagnostics.</summary>
    public long BatchesFailed => Interlocked.Read(ref _batchesFailed);

    /// <summary>Operations sent in them.</summary>
    public long OperationsSent => Interlocked.Read(ref _operationsSent);

    /// <summary>Operations the gateway's silo ran on its own shards: each crossed the network once, and no silo forwarded it.</summary>
    public long OperationsRun => Interlocked.Read(ref _operationsRun);

    /// <summary>Whether batches may go to this gateway: the client counts it live and none failed within <see cref="FailurePause"/>.</summary>
    public bool IsAvailable =>
        Interlocked.Read(ref _failedAt) is var failedAt && (failedAt == 0 || TimeProvider.System.GetElapsedTime(failedAt) >= FailurePause) && live.Contains(gateway);

    /// <summary>
    /// Queues <paramref name="operation"/> for the next batch, sending one now if fewer than the limit travel; a write
    /// is not run past <paramref name="deadline"/> (<see cref="CallDeadline"/>).
    /// </summary>
    public ValueTask<ShardOperationResult> Enqueue(ShardOperation operation, long deadline)
    {
        var pending = PendingOperation.Rent(operation, deadline);
        Flight? flight = null;
        PendingOperation[]? batch = null;
        lock (_gate)
        {
            _waiting.Add(pending);
            if (_inFlight < _maxInFlight)
            {
                _inFlight++;
                flight = _idle.TryPop(out var idle) ? idle : new Flight(this);
                batch = TakeWaiting();
            }
        }

        flight?.Send(batch!);
        return pending.Answer;
    }

    private PendingOperation[] TakeWaiting()
    {
        var batch = new PendingOperation[Math.Min(_waiting.Count, MaxOperations)];
        _waiting.CopyTo(0, batch, 0, batch.Length);
        _waiting.RemoveRange(0, batch.Length);
        return batch;
    }

    /// <summary>Answers each operation of <paramref name="batch"/> from <paramref name="results"/> (all failed when null).</summary>
    private void Answer(PendingOperation[] batch, ShardOperationResult[]? results)
    {
        if (results is null)
        {
            Interlocked.Exchange(ref _failedAt, TimeProvider.System.GetTimestamp());
            Interlocked.Increment(ref _batchesFailed);
        }

        // Counted before any caller resumes, so a caller that reads the count after its call sees that call in it.
        Interlocked.Add(ref _operationsRun, results?.Count(static result => result.Status == ShardOperationStatus.Done) ?? 0);
        for (var i = 0; i < batch.Length; i++)
        {
            var result = results is not null && i < results.Length ? results[i] : ShardOperationResult.Failed;
            if (result is { WriterCopyAt: { } at, Entry: { } entry } && link is not null)
            {
                // Before the writer resumes, so it reads what it wrote from its near cache.
                var operation = batch[i].Operation;
                link.KeepOwnWrite(Encoding.UTF8.GetString(operation.Key), operation.Slot, entry, at);
            }

            batch[i].SetResult(result);
        }
    }

    /// <summary>
    /// The next batch for <paramref name="flight"/> to send, or null when nothing waits and it goes idle. After a batch
    /// that <paramref name="failed"/>, what waits goes to its grains now rather than to a silo that did not answer.
    /// </summary>
    private PendingOperation[]? Next(Flight flight, bool failed)
    {
        PendingOperation[]? stranded = null;
        lock (_gate)
        {
            if (failed)
            {
                stranded = [.. _waiting];
                _waiting.Clear();
            }

            if (_waiting.Count > 0)
            {
                return TakeWaiting();
            }

            _inFlight--;
            _idle.Push(flight);
        }

        foreach (var pending in stranded ?? [])
        {
            pending.SetResult(ShardOperationResult.Failed);
        }

        return null;
    }

    /// <summary>The batch's answers, or null when the gateway is no longer live, left, timed out or refused.</summary>
    /// <remarks>Pooled: a lone caller's every call is a batch of its own, and would otherwise allocate this method's state.</remarks>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<ShardOperationResult[]?> RunAsync(PendingOperation[] batch)
    {
        if (!live.Contains(gateway))
        {
            return null;
        }

        Interlocked.Increment(ref _batchesSent);
        Interlocked.Add(ref _operationsSent, batch.Length);
        try
        {
            var operations = Array.ConvertAll(batch, static pending => pending.Operation);
            var writeDeadline = WriteDeadline(batch);
            return link is null
                ? await service.Run(operations, writeDeadline).ConfigureAwait(false)
                : await service.RunTracked(operations, writeDeadline, link.Reference).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            // Each operation still has its single call, with its retries.
            return null;
        }
    }

    /// <summary>The earliest deadline of the batch's writes: a write not run by then is not run at all.</summary>
    private static long WriteDeadline(PendingOperation[] batch)
    {
        var earliest = long.MaxValue;
        foreach (var pending in batch)
        {
            if (pending.Operation.Changes)
            {
                earliest = Math.Min(earliest, pending.Deadline);
            }
        }

        return earliest == long.MaxValue ? CallDeadline.None : earliest;
    }

    /// <summary>
    /// One of the batches on its way, kept for the next: it waits for each batch's answer through its own continuation,
    /// so a lone caller's every call, a batch of its own, allocates no task to carry the batch there and back.
    /// </summary>
    private sealed class Flight : IThreadPoolWorkItem
    {
        private readonly GatewayBatcher _owner;
        private readonly Action _answered;
        private PendingOperation[] _batch = [];
        private bool _failed;
        private ConfiguredValueTaskAwaitable<ShardOperationResult[]?>.ConfiguredValueTaskAwaiter _answer;

        public Flight(GatewayBatcher owner)
        {
            _owner = owner;
            _answered = Answered;
        }

        /// <summary>Sends <paramref name="batch"/>; its answer sends the next, until none waits.</summary>
        public void Send(PendingOperation[] batch)
        {
            _batch = batch;

            // Consumed once, by GetResult in Answered; not resuming on a context, so the answer is handed on where it
            // arrives, as an awaited grain call's is.
#pragma warning disable CA2012
            _answer = _owner.RunAsync(_batch).ConfigureAwait(false).GetAwaiter();
#pragma warning restore CA2012
            if (_answer.IsCompleted)
            {
                Answered();
            }
            else
            {
                _answer.UnsafeOnCompleted(_answered);
            }
        }

        private void Answered()
        {
            var results = _answer.GetResult();
            _failed = results is null;
            _owner.Answer(_batch, results);

            // The callers resume on the pool, queued on this thread first; the next batch is taken after them, from the
            // pool's global queue, so what they go on to call travels in it rather than in batches of one or two.
            ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
        }

        void IThreadPoolWorkItem.Execute()
        {
            if (_owner.Next(this, _failed) is { } next)
            {
                Send(next);
            }
        }
    }

    /// <summary>
    /// One caller's operation, answered through a <see cref="ValueTask{TResult}"/>. Its answer is read once, and then it
    /// is kept for another operation, so a call allocates no task of its own.
    /// </summary>
    /// <remarks>
    /// The caller's continuation is queued to the thread pool, as an awaited Orleans grain call's is, never run where the
    /// batch's answer arrives: that thread still answers the batch's other operations and sends the next batch, and a
    /// caller that went on to a synchronous call there would wait for a batch only that thread can send.
    /// </remarks>
    private sealed class PendingOperation : IValueTaskSource<ShardOperationResult>
    {
        private const int PoolLimit = 4096;
        private static readonly Lock PoolGate = new();
        private static readonly Stack<PendingOperation> Pool = new();

        private ManualResetValueTaskSourceCore<ShardOperationResult> _answer = new() { RunContinuationsAsynchronously = true };

        public ShardOperation Operation { get; private set; } = null!;

        /// <summary>When its caller stops waiting (<see cref="CallDeadline"/>).</summary>
        public long Deadline { get; private set; }

        public ValueTask<ShardOperationResult> Answer => new(this, _answer.Version);

        public static PendingOperation Rent(ShardOperation operation, long deadline)
        {
            PendingOperation? pending;
            lock (PoolGate)
            {
                Pool.TryPop(out pending);
            }

            pending ??= new PendingOperation();
            pending.Operation = operation;
            pending.Deadline = deadline;
            return pending;
        }

        /// <summary>Answers the operation; called once per operation.</summary>
        public void SetResult(ShardOperationResult result) => _answer.SetResult(result);

        public ShardOperationResult GetResult(short token)
        {
            var result = _answer.GetResult(token);
            Operation = null!;
            _answer.Reset();
            lock (PoolGate)
            {
                if (Pool.Count < PoolLimit)
                {
                    Pool.Push(this);
                }
            }

            return result;
        }

        public ValueTaskSourceStatus GetStatus(short token) => _answer.GetStatus(token);

        public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
            _answer.OnCompleted(continuation, state, token, flags);
    }
}
