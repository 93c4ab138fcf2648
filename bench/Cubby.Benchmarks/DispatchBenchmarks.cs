using System.Buffers;
using System.IO.Pipelines;
using System.Text;
using BenchmarkDotNet.Attributes;
using Cubby.Resp;
using Cubby.Silo.Commands;
using Cubby.Silo.Hosting;
using Cubby.Silo.Protocol;

namespace Cubby.Benchmarks;

/// <summary>
/// A silo's whole per-command work after parsing, on one connection: finding the command, checking it, routing the
/// key to its slot, running it on the shard grain, writing the reply and counting it for metrics (command tally,
/// latency histogram, busiest slots). The memory column must stay 0.
/// </summary>
[MemoryDiagnoser]
public class DispatchBenchmarks : IDisposable
{
    private readonly SiloRuntime _silo;
    private readonly Pipe _pipe = new(new PipeOptions(pauseWriterThreshold: 0));
    private readonly ClientSession _session;
    private readonly RespRequest _get;
    private readonly RespRequest _set;
    private readonly RespRequest _miss;

    /// <summary>Starts a bare silo runtime (no listeners, every shard here) holding the key the commands use.</summary>
    public DispatchBenchmarks()
    {
        _silo = SiloRuntime.WithEveryShardHere(new SiloOptions { MaxMemoryBytes = 256L << 20 }, TimeProvider.System);
        _session = new ClientSession(_silo, _pipe.Writer, "bench");
        _set = Parse("SET", "key:000042", new string('v', StoreData.ValueBytes));
        _get = Parse("GET", "key:000042");
        _miss = Parse("GET", "absent:000042");
        Run(_set);
    }

    /// <summary><c>GET</c> of an existing 1 KiB value.</summary>
    /// <returns>The reply bytes.</returns>
    [Benchmark]
    public long GetHit() => Run(_get);

    /// <summary><c>GET</c> of a missing key.</summary>
    /// <returns>The reply bytes.</returns>
    [Benchmark]
    public long GetMiss() => Run(_miss);

    /// <summary><c>SET</c> overwriting an existing key with 1 KiB.</summary>
    /// <returns>The reply bytes.</returns>
    [Benchmark]
    public long SetExisting() => Run(_set);

    /// <summary>Releases the runtime and its requests.</summary>
    public void Dispose()
    {
        _get.Dispose();
        _set.Dispose();
        _miss.Dispose();
        _silo.Catalog.Dispose();
        GC.SuppressFinalize(this);
    }

    private long Run(RespRequest request)
    {
        CommandDispatcher.Execute(_session, request);
        // The pipe never pauses the writer, so the flush completes at once.
        var flush = _pipe.Writer.FlushAsync();
        if (!flush.IsCompletedSuccessfully)
        {
            throw new InvalidOperationException("The reply pipe paused.");
        }

        _pipe.Reader.TryRead(out var read);
        var length = read.Buffer.Length;
        _pipe.Reader.AdvanceTo(read.Buffer.End);
        return length;
    }

    private static RespRequest Parse(params string[] arguments)
    {
        var encoded = new ArrayBufferWriter<byte>();
        var writer = new RespWriter(encoded);
        writer.WriteArrayHeader(arguments.Length);
        foreach (var argument in arguments)
        {
            writer.WriteBulkString(Encoding.UTF8.GetBytes(argument));
        }

        var request = new RespRequest();
        if (RespRequestParser.TryParse(new ReadOnlySequence<byte>(encoded.WrittenMemory), request, RespLimits.Default, out _, out _) != RespParseStatus.Complete)
        {
            throw new InvalidOperationException("The benchmark's request did not parse.");
        }

        return request;
    }
}
