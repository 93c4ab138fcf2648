using Cubby.Grains;
using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Silo.Commands;
using Cubby.Silo.Hosting;
using Cubby.Silo.Transactions;
using Cubby.Text;

namespace Cubby.Silo.Routing;

/// <summary>
/// Reaches a shard through Orleans when it is not active on this silo (or is moving): the command travels as its parsed
/// arguments to <see cref="IShardCommands.Run"/> and its reply comes back encoded in the client's protocol. A call that
/// finds the shard's silo gone, stopping or unreachable is tried again until <c>Cubby:Clustering:CallTimeout</c>
/// (<see cref="ShardCallRetry"/>), and every attempt carries that deadline (<see cref="CallDeadline"/>): one held in a
/// cut link and delivered later is not run after the door gave up on it.
/// </summary>
internal static class ShardRelay
{
    /// <summary>The whole of <paramref name="request"/>, to relay for a connection running with <paramref name="context"/>.</summary>
    public static RelayedCommand Command(RespRequest request, CommandContext context) =>
        RelayedCommand.Create(request.Count, i => request[i], context.Writer.Version, context.TrackReadsFor);

    /// <summary>
    /// Runs <paramref name="command"/> on shard <paramref name="slot"/> wherever it is, within <paramref name="budget"/>
    /// (what is left of its client's call timeout); its reply, or an error reply.
    /// </summary>
    public static async Task<RelayedReply> RunAsync(SiloRuntime silo, int slot, RelayedCommand command, TimeSpan budget)
    {
        silo.Statistics.Relayed();
        RelayedReply reply;
        try
        {
            reply = await CallAsync(silo, grains => grains.GetGrain<IShardCommands>(slot).Run(command).AsTask(), budget).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            return new RelayedReply { Reply = ErrorReply(Describe(exception, slot)) };
        }

        silo.Statistics.AddLookups(reply.Hits, reply.Misses);
        return reply;
    }

    /// <summary>
    /// Calls a shard grain, trying again while its silo is unreachable or stopping, until the call timeout (or the
    /// <paramref name="budget"/> left of it), which is also every attempt's deadline.
    /// </summary>
    public static Task<T> CallAsync<T>(SiloRuntime silo, Func<IGrainFactory, Task<T>> call, TimeSpan? budget = null)
    {
        var timeout = budget ?? silo.Options.Clustering.CallTimeout;
        var deadline = CallDeadline.After(timeout);
        return ShardCallRetry.CallAsync(() => CallDeadline.Carrying(deadline, (call, silo.Grains), static s => s.call(s.Grains)), timeout, _ => silo.Statistics.RelayRetried());
    }

    /// <summary>
    /// The error reply for a call to shard <paramref name="slot"/> that failed. Any failure but the shard's own answer
    /// (out of memory) is a fault of the transaction running in this flow, if any, which is then rolled back
    /// (<see cref="TransactionFaults"/>).
    /// </summary>
    public static string Describe(Exception exception, int slot)
    {
        var error = exception switch
        {
            _ when ShardCallRetry.IsTransient(exception) => SiloErrors.ShardUnreachable(slot, exception.Message),
            CallDeadlineException => SiloErrors.ShardUnreachable(slot, exception.Message),
            CubbyOutOfMemoryException => RedisErrors.OutOfMemory,
            HoldEndedException => "ERR " + exception.Message,
            _ => "ERR internal error: " + FirstLine(exception.Message),
        };

        if (exception is not CubbyOutOfMemoryException)
        {
            TransactionFaults.Note(error);
        }

        return error;
    }

    public static byte[] ErrorReply(string text)
    {
        var buffer = new System.Buffers.ArrayBufferWriter<byte>(text.Length + 3);
        new RespWriter(buffer).WriteError(text);
        return buffer.WrittenSpan.ToArray();
    }

    private static string FirstLine(string text) => text.Split('\n', 2)[0].TrimEnd('\r');
}
