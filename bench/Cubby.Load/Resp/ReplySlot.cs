using System.Collections.Concurrent;
using System.Threading.Tasks.Sources;

namespace Cubby.Load.Resp;

/// <summary>
/// The awaitable behind one pending command, pooled so a call allocates no task. Every caller awaits its slot exactly
/// once, after which the slot returns to the pool.
/// </summary>
internal sealed class ReplySlot : IValueTaskSource<RespReply>
{
    private static readonly ConcurrentQueue<ReplySlot> Pool = new();

    // Continuations run on the thread pool, never on the connection's reader thread, as Cubby's own client does.
    private ManualResetValueTaskSourceCore<RespReply> _core = new() { RunContinuationsAsynchronously = true };

    private ReplySlot()
    {
    }

    public ValueTask<RespReply> Reply => new(this, _core.Version);

    public static ReplySlot Rent() => Pool.TryDequeue(out var slot) ? slot : new ReplySlot();

    public void Complete(RespReply reply) => _core.SetResult(reply);

    public void Fail(Exception exception) => _core.SetException(exception);

    public RespReply GetResult(short token)
    {
        try
        {
            return _core.GetResult(token);
        }
        finally
        {
            _core.Reset();
            Pool.Enqueue(this);
        }
    }

    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);
}
