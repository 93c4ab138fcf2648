using Cubby.Load.Resp;

namespace Cubby.Load.Workloads;

/// <summary>Plain <c>SET key value PX ms</c> and <c>GET key</c> over the harness's multiplexed RESP connection: any server.</summary>
internal sealed class RawRespTarget(RespConnection connection, WorkloadData data) : ICacheTarget
{
    public ICacheCaller CreateCaller() => new Caller(connection, data);

    public void Dispose() => connection.Dispose();

    private sealed class Caller(RespConnection connection, WorkloadData data) : ICacheCaller
    {
        private readonly CommandWriter _writer = new();

        public async ValueTask SetAsync(int key)
        {
            var command = _writer.Start(5).Bulk("SET"u8).Bulk(data.KeyBytes[key]).Bulk(data.Value).Bulk("PX"u8).Bulk(data.TimeToLiveMs).Written;
            var reply = await connection.SendAsync(command).ConfigureAwait(false);
            if (reply.Kind != RespReplyKind.Simple)
            {
                throw new InvalidOperationException($"SET answered {reply}.");
            }
        }

        public async ValueTask<bool> GetAsync(int key)
        {
            var reply = await connection.SendAsync(_writer.Start(2).Bulk("GET"u8).Bulk(data.KeyBytes[key]).Written).ConfigureAwait(false);
            return reply.Kind switch
            {
                RespReplyKind.Bulk => true,
                RespReplyKind.Null => false,
                _ => throw new InvalidOperationException($"GET answered {reply}."),
            };
        }
    }
}
