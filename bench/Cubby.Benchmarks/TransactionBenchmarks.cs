using System.Buffers;
using System.Net.Sockets;
using System.Text;
using BenchmarkDotNet.Attributes;
using Cubby.Resp;
using Cubby.Silo.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Cubby.Benchmarks;

/// <summary>
/// What a transaction costs: two INCRs of keys in different shards sent in one pipeline, against the same two INCRs
/// inside MULTI ... EXEC (which holds both shards first), over a real socket to a silo in this process.
/// </summary>
[MemoryDiagnoser]
public class TransactionBenchmarks : IDisposable
{
    private static readonly byte[] TwoIncrements = Frames(["INCR", "bench:a"], ["INCR", "bench:b"]);
    private static readonly byte[] TransactionOfTwo = Frames(["MULTI"], ["INCR", "bench:a"], ["INCR", "bench:b"], ["EXEC"]);
    private static readonly byte[] SameShardTransaction = Frames(["MULTI"], ["INCR", "{bench}:a"], ["INCR", "{bench}:b"], ["EXEC"]);

    private readonly byte[] _buffer = new byte[64 * 1024];
    private WebApplication? _silo;
    private Socket? _socket;

    /// <summary>Starts a silo on free loopback ports and connects to its RESP port.</summary>
    /// <returns>When connected.</returns>
    [GlobalSetup]
    public async Task StartAsync()
    {
        _silo = await InProcessSilo.StartAsync(dashboard: false).ConfigureAwait(false);
        var resp = _silo.Services.GetRequiredService<SiloEndpoints>().Resp;
        _socket = new Socket(resp.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await _socket.ConnectAsync(resp).ConfigureAwait(false);
    }

    /// <summary>Stops the silo.</summary>
    /// <returns>When stopped.</returns>
    [GlobalCleanup]
    public async Task StopAsync()
    {
        _socket?.Dispose();
        if (_silo is not null)
        {
            await _silo.StopAsync().ConfigureAwait(false);
            await _silo.DisposeAsync().ConfigureAwait(false);
        }
    }

    /// <summary>Closes the connection.</summary>
    public void Dispose()
    {
        _socket?.Dispose();
        GC.SuppressFinalize(this);
    }

    /// <summary><c>INCR a</c>, <c>INCR b</c> (different shards), pipelined: one round trip, two replies.</summary>
    /// <returns>The reply bytes.</returns>
    [Benchmark(Baseline = true)]
    public Task<int> TwoIncrs() => RoundTripAsync(TwoIncrements, replies: 2);

    /// <summary><c>MULTI</c>, <c>INCR a</c>, <c>INCR b</c> (different shards), <c>EXEC</c>, pipelined: one round trip, four replies.</summary>
    /// <returns>The reply bytes.</returns>
    [Benchmark]
    public Task<int> MultiOfTwoIncrsAcrossShards() => RoundTripAsync(TransactionOfTwo, replies: 4);

    /// <summary>The same transaction with both keys in one shard (a hash tag): one shard to hold.</summary>
    /// <returns>The reply bytes.</returns>
    [Benchmark]
    public Task<int> MultiOfTwoIncrsInOneShard() => RoundTripAsync(SameShardTransaction, replies: 4);

    private async Task<int> RoundTripAsync(byte[] frames, int replies)
    {
        await _socket!.SendAsync(frames).ConfigureAwait(false);
        var filled = 0;
        while (true)
        {
            filled += await _socket.ReceiveAsync(_buffer.AsMemory(filled)).ConfigureAwait(false);
            var buffer = new ReadOnlySequence<byte>(_buffer, 0, filled);
            var complete = 0;
            while (complete < replies && RespReplyReader.TrySkip(buffer, RespLimits.Default, out var end, out _) == RespParseStatus.Complete)
            {
                buffer = buffer.Slice(end);
                complete++;
            }

            if (complete == replies)
            {
                return filled;
            }
        }
    }

    private static byte[] Frames(params string[][] commands)
    {
        var output = new ArrayBufferWriter<byte>();
        var writer = new RespWriter(output);
        foreach (var command in commands)
        {
            writer.WriteArrayHeader(command.Length);
            foreach (var argument in command)
            {
                writer.WriteBulkString(Encoding.UTF8.GetBytes(argument));
            }
        }

        return output.WrittenSpan.ToArray();
    }
}
