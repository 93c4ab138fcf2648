using System.Buffers;
using System.Text;
using BenchmarkDotNet.Attributes;
using Cubby.Resp;

namespace Cubby.Benchmarks;

/// <summary>
/// The silo's protocol work per command: parsing a GET or a SET of 1 KiB from the receive buffer, and writing the
/// reply (the 1 KiB value as a bulk string, or +OK) into the send buffer.
/// </summary>
[MemoryDiagnoser]
public class RespBenchmarks : IDisposable
{
    private readonly RespRequest _request = new();
    private readonly ArrayBufferWriter<byte> _output = new(4096);
    private readonly RespWriter _writer;
    private readonly ReadOnlySequence<byte> _get;
    private readonly ReadOnlySequence<byte> _set;
    private readonly byte[] _value = new byte[StoreData.ValueBytes];

    /// <summary>Encodes the commands once.</summary>
    public RespBenchmarks()
    {
        _writer = new RespWriter(_output);
        _get = new ReadOnlySequence<byte>(Encoding.ASCII.GetBytes("*2\r\n$3\r\nGET\r\n$10\r\nkey:000042\r\n"));
        var set = new ArrayBufferWriter<byte>();
        var writer = new RespWriter(set);
        writer.WriteArrayHeader(3);
        writer.WriteBulkString("SET"u8);
        writer.WriteBulkString("key:000042"u8);
        writer.WriteBulkString(_value);
        _set = new ReadOnlySequence<byte>(set.WrittenMemory);
    }

    /// <summary>Parses <c>GET key</c>.</summary>
    /// <returns>The argument count.</returns>
    [Benchmark]
    public int ParseGet() => Parse(_get);

    /// <summary>Parses <c>SET key value</c> with a 1 KiB value.</summary>
    /// <returns>The argument count.</returns>
    [Benchmark]
    public int ParseSet() => Parse(_set);

    /// <summary>Writes a GET's reply: the 1 KiB value as a bulk string.</summary>
    /// <returns>The bytes written.</returns>
    [Benchmark]
    public int ReplyGet()
    {
        _output.ResetWrittenCount();
        _writer.WriteBulkString(_value);
        return _output.WrittenCount;
    }

    /// <summary>Writes a SET's reply: <c>+OK</c>.</summary>
    /// <returns>The bytes written.</returns>
    [Benchmark]
    public int ReplySet()
    {
        _output.ResetWrittenCount();
        _writer.WriteOk();
        return _output.WrittenCount;
    }

    /// <summary>A whole GET as the silo's protocol layer sees it: parse, then write the 1 KiB reply.</summary>
    /// <returns>The bytes written.</returns>
    [Benchmark(Baseline = true)]
    public int ParseAndReplyGet()
    {
        Parse(_get);
        return ReplyGet();
    }

    /// <summary>A whole SET as the silo's protocol layer sees it: parse the 1 KiB command, then write +OK.</summary>
    /// <returns>The bytes written.</returns>
    [Benchmark]
    public int ParseAndReplySet()
    {
        Parse(_set);
        return ReplySet();
    }

    /// <summary>Returns the request's pooled buffers.</summary>
    public void Dispose()
    {
        _request.Dispose();
        GC.SuppressFinalize(this);
    }

    private int Parse(in ReadOnlySequence<byte> command) =>
        RespRequestParser.TryParse(command, _request, RespLimits.Default, out _, out _) == RespParseStatus.Complete
            ? _request.Count
            : throw new InvalidOperationException("The command did not parse.");
}
