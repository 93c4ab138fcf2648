using System.Buffers;
using Cubby.Grains;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Silo.Commands;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Routing;

/// <summary>
/// Reaches a shard through Orleans when it is not active on this silo (or is moving): the command travels as its RESP
/// frame to <see cref="IShardCommands.Execute"/> and its reply comes back encoded in the client's protocol. A call that
/// finds the shard's silo gone, stopping or unreachable is tried again until <c>Cubby:Clustering:CallTimeout</c>
/// (<see cref="ShardCallRetry"/>).
/// </summary>
internal static class ShardRelay
{
    /// <summary>The RESP frame of <paramref name="request"/>, or of its name and the arguments at <paramref name="positions"/>.</summary>
    public static byte[] Frame(RespRequest request, IReadOnlyList<int>? positions = null, int width = 1)
    {
        var buffer = new ArrayBufferWriter<byte>();
        var writer = new RespWriter(buffer);
        if (positions is null)
        {
            writer.WriteArrayHeader(request.Count);
            for (var i = 0; i < request.Count; i++)
            {
                writer.WriteBulkString(request[i]);
            }
        }
        else
        {
            writer.WriteArrayHeader(1 + positions.Count * width);
            writer.WriteBulkString(request[0]);
            foreach (var position in positions)
            {
                for (var i = 0; i < width; i++)
                {
                    writer.WriteBulkString(request[position + i]);
                }
            }
        }

        return buffer.WrittenSpan.ToArray();
    }

    /// <summary>Runs <paramref name="frame"/> on shard <paramref name="slot"/> wherever it is; its encoded reply, or an error reply.</summary>
    public static async Task<byte[]> ExecuteAsync(SiloRuntime silo, int slot, byte[] frame, RespVersion protocol)
    {
        silo.Statistics.Relayed();
        try
        {
            return await CallAsync(silo, grains => grains.GetGrain<IShardCommands>(slot).Execute(frame, protocol).AsTask()).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            return ErrorReply(Describe(exception, slot));
        }
    }

    /// <summary>Calls a shard grain, trying again while its silo is unreachable or stopping, until the call timeout.</summary>
    public static Task<T> CallAsync<T>(SiloRuntime silo, Func<IGrainFactory, Task<T>> call) =>
        ShardCallRetry.CallAsync(() => call(silo.Grains), silo.Options.Clustering.CallTimeout, _ => silo.Statistics.RelayRetried());

    public static string Describe(Exception exception, int slot) => exception switch
    {
        _ when ShardCallRetry.IsTransient(exception) => ErrorText.ShardUnreachable(slot, exception.Message),
        CubbyOutOfMemoryException => ErrorText.OutOfMemory,
        _ => "ERR internal error: " + FirstLine(exception.Message),
    };

    public static byte[] ErrorReply(string text)
    {
        var buffer = new ArrayBufferWriter<byte>(text.Length + 3);
        new RespWriter(buffer).WriteError(text);
        return buffer.WrittenSpan.ToArray();
    }

    private static string FirstLine(string text) => text.Split('\n', 2)[0].TrimEnd('\r');
}
