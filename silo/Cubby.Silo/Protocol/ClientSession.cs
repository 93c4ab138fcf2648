using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Silo.Commands;
using Cubby.Silo.Diagnostics;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Protocol;

/// <summary>One client connection's state: protocol version, authentication, name, and its reply writer.</summary>
internal sealed class ClientSession
{
    private ValueTask? _pending;
    private PipeReader? _input;
    private Action<string>? _close;
    private PushQueue? _pushes;
    private readonly CommandTally _tally;
    private (int Command, long Started, long ErrorsBefore)? _deferredCommand;
    private readonly Lock _replyTurnGate = new();
    private bool _replyTurnGiven;
    private TaskCompletionSource? _replyTurnWaiter;

    public ClientSession(SiloRuntime silo, IBufferWriter<byte> output, string remoteEndPoint)
    {
        Silo = silo;
        Context = new CommandContext(silo.Catalog, output, silo.RespDoor);
        Id = silo.Clients.NextId();
        RemoteEndPoint = remoteEndPoint;
        IsAuthenticated = silo.Options.Password is null;
        ConnectedAt = silo.Time.GetUtcNow();
        _tally = silo.Metrics.CreateTally();
    }

    public long Id { get; }

    public SiloRuntime Silo { get; }

    /// <summary>What this connection's commands on keys run with: the shards the router entered, and the reply writer.</summary>
    public CommandContext Context { get; }

    public RespWriter Writer => Context.Writer;

    /// <summary>Sends replies to <paramref name="writer"/> until swapped back; returns the writer in use before.</summary>
    public RespWriter SwapWriter(RespWriter writer) => Context.SwapWriter(writer);

    public string RemoteEndPoint { get; }

    public DateTimeOffset ConnectedAt { get; }

    public string? Name { get; set; }

    /// <summary>The client library's name, from CLIENT SETINFO LIB-NAME.</summary>
    public string? LibraryName { get; set; }

    /// <summary>The client library's version, from CLIENT SETINFO LIB-VER.</summary>
    public string? LibraryVersion { get; set; }

    public bool IsAuthenticated { get; set; }

    /// <summary>The commands queued since MULTI; null outside a transaction.</summary>
    public Transactions.QueuedTransaction? Transaction { get; set; }

    /// <summary>The keys WATCHed since the last EXEC, DISCARD or UNWATCH; null when none.</summary>
    public Transactions.WatchedKeys? Watches { get; set; }

    /// <summary>Set by QUIT: the connection closes once the pending replies are flushed.</summary>
    public bool CloseRequested { get; set; }

    public string? LastCommand { get; set; }

    /// <summary>When this connection last ran commands.</summary>
    public DateTimeOffset LastActivity { get; private set; }

    /// <summary>
    /// Hands the connection a command that finishes later (a command relayed to a shard on another silo, or moving): the connection
    /// stops running commands until it completes, so replies stay in order. The operation writes its own reply and
    /// never throws.
    /// </summary>
    public void Defer(ValueTask operation)
    {
        Debug.Assert(_pending is null, "One deferred command at a time.");
        _pending = operation;
    }

    public bool HasDeferred => _pending is not null;

    /// <summary>
    /// Completes once whoever runs this session's commands has written every reply before the deferred one and is only
    /// waiting for it (<see cref="AwaitDeferredAsync"/>). A deferred operation awaits it before it touches the session:
    /// it resumes on another thread, while the connection may still be flushing or taking the deferred command.
    /// </summary>
    public ValueTask ReplyTurnAsync()
    {
        lock (_replyTurnGate)
        {
            if (_replyTurnGiven)
            {
                return ValueTask.CompletedTask;
            }

            _replyTurnWaiter ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            return new ValueTask(_replyTurnWaiter.Task);
        }
    }

    /// <summary>
    /// Gives <paramref name="deferred"/> (from <see cref="TakeDeferred"/>) its reply turn, waits for it and counts it.
    /// The caller must not touch the session until this completes.
    /// </summary>
    public async ValueTask AwaitDeferredAsync(ValueTask deferred)
    {
        TaskCompletionSource? waiter;
        lock (_replyTurnGate)
        {
            _replyTurnGiven = true;
            waiter = _replyTurnWaiter;
            _replyTurnWaiter = null;
        }

        waiter?.TrySetResult();
        await deferred.ConfigureAwait(false);
        lock (_replyTurnGate)
        {
            _replyTurnGiven = false;
        }

        CompleteDeferred();
    }

    public ValueTask? TakeDeferred()
    {
        var pending = _pending;
        _pending = null;
        return pending;
    }

    /// <summary>
    /// Gives the session its connection's input, whose pending read it cancels to wake the connection (on shutdown, or
    /// for a published message), and the way to close the connection from another thread.
    /// </summary>
    public void Attach(PipeReader input, Action<string> close)
    {
        _input = input;
        _close = close;
    }

    /// <summary>This connection's pub/sub subscriptions; null until it first subscribes.</summary>
    public PubSub.Subscriber? Subscriber { get; private set; }

    /// <summary>Whether Redis's RESP2 subscribed context applies: only pub/sub commands, PING and QUIT may run.</summary>
    public bool InSubscribedContext => Subscriber is { Count: > 0 } && Writer.Version == RespVersion.Resp2;

    /// <summary>
    /// What waits to be pushed to this connection, made on first use. Senders wake and close the connection through
    /// the thread pool: with inline scheduling its pipe would otherwise resume the connection's loop on the sender's
    /// thread, inside a publish or a shard's turn.
    /// </summary>
    public PushQueue Pushes => _pushes ??= new PushQueue(
        Silo.Options.PubSubBufferLimitBytes,
        () => ThreadPool.UnsafeQueueUserWorkItem(static session => session._input?.CancelPendingRead(), this, preferLocal: false),
        reason => ThreadPool.UnsafeQueueUserWorkItem(static state => state.Session._close?.Invoke(state.Reason), (Session: this, Reason: reason), preferLocal: false));

    /// <summary>The connection's <see cref="Subscriber"/>, made on its first subscription.</summary>
    public PubSub.Subscriber Subscribe() => Subscriber ??= new PubSub.Subscriber(Pushes);

    /// <summary>This connection's CLIENT TRACKING state; null until it first turns tracking on.</summary>
    public Tracking.ClientTracking? Tracking { get; set; }

    /// <summary>Writes what was pushed to this connection since the last call.</summary>
    public void WritePushes() => _pushes?.WriteWaiting(Writer);

    /// <summary>Once the connection has closed: drops what waits to be pushed, its subscriptions and its tracked keys.</summary>
    public void OnClosed()
    {
        _pushes?.Closed();
        if (Subscriber is { } subscriber)
        {
            Silo.PubSub.RemoveAll(subscriber);
        }

        if (Tracking is not null)
        {
            Silo.TrackedKeys.Forget(this);
            if (Tracking.Broadcast)
            {
                _ = Silo.Broadcasts.SetAsync(this, null);
            }
        }
    }

    /// <summary>Set when the server is stopping and asked this connection to close.</summary>
    public bool ShutdownRequested { get; private set; }

    /// <summary>
    /// When (a <see cref="Stopwatch"/> timestamp) the commands being run had arrived at the latest: each runs within
    /// <c>Cubby:Clustering:CallTimeout</c> of that or not at all (<see cref="CallBudget"/>), so a command that waited
    /// behind a slow one is not run after a client that waits that long has given up on it.
    /// </summary>
    public long ArrivedBy { get; set; } = Stopwatch.GetTimestamp();

    /// <summary>What is left of the call timeout of the commands being run, counted from <see cref="ArrivedBy"/>.</summary>
    public TimeSpan CallBudget => Silo.Options.Clustering.CallTimeout - Stopwatch.GetElapsedTime(ArrivedBy);

    public void RequestShutdown()
    {
        ShutdownRequested = true;
        _input?.CancelPendingRead();
    }

    /// <summary>Counts one finished command in this session's tally (published with the batch).</summary>
    public void RecordCommand(int command, bool failed, long elapsedTicks)
    {
        _tally.Record(command, failed, elapsedTicks);
        if (Silo.Metrics.Duration is { Enabled: true } duration)
        {
            duration.Record((double)elapsedTicks / Stopwatch.Frequency);
        }
    }

    /// <summary>Remembers a command whose reply is written by its deferred part, to count it once that finishes.</summary>
    public void TrackDeferred(int command, long started, long errorsBefore) => _deferredCommand = (command, started, errorsBefore);

    /// <summary>
    /// Takes the deferred command being tracked (EXEC), so the commands it runs can each be tracked and counted; give it
    /// back with <see cref="RestoreDeferredTracking"/>.
    /// </summary>
    public (int Command, long Started, long ErrorsBefore)? TakeDeferredTracking()
    {
        var tracked = _deferredCommand;
        _deferredCommand = null;
        return tracked;
    }

    public void RestoreDeferredTracking((int Command, long Started, long ErrorsBefore)? tracked) => _deferredCommand = tracked;

    /// <summary>Counts the deferred command once its reply is written.</summary>
    private void CompleteDeferred()
    {
        if (Tracking is { InFlight: not null })
        {
            Silo.TrackedKeys.Read(this);
        }

        if (_deferredCommand is { } pending)
        {
            _deferredCommand = null;
            RecordCommand(pending.Command, Writer.ErrorCount != pending.ErrorsBefore, Stopwatch.GetTimestamp() - pending.Started);
        }
    }

    /// <summary>Moves this session's counts to the silo's statistics once per batch, not once per command.</summary>
    public void PublishStatistics(int commands)
    {
        LastActivity = Silo.Time.GetUtcNow();
        Silo.Statistics.AddCommands(commands);
        var (hits, misses) = Context.TakeLookups();
        Silo.Statistics.AddLookups(hits, misses);
        Silo.Metrics.Publish(_tally);
    }

    /// <summary>Checks a key argument; on failure writes the error reply and returns false, so a handler just returns.</summary>
    public bool CheckKey(ReadOnlySpan<byte> key) => Context.CheckKey(key);
}
