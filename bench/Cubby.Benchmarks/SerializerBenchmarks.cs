using System.Buffers;
using BenchmarkDotNet.Attributes;
using Cubby.Client.MessagePack;
using Cubby.Client.Serialization;
using PolyType;

namespace Cubby.Benchmarks;

/// <summary>
/// The client's serializers on a small object, each way: System.Text.Json (the default,
/// <see cref="SystemTextJsonCubbySerializer"/>) and MessagePack (<see cref="MessagePackCubbySerializer"/>).
/// </summary>
[MemoryDiagnoser]
public partial class SerializerBenchmarks
{
    private readonly ArrayBufferWriter<byte> _output = new(1024);
    private readonly ForecastSample _sample = new()
    {
        City = "Lisbon",
        IssuedAt = new DateTimeOffset(2026, 11, 22, 6, 0, 0, TimeSpan.Zero),
        TemperatureC = 17.5,
        Humidity = 72,
        Hours = ["sun", "sun", "cloud", "rain", "rain", "cloud"],
    };

    private ICubbySerializer _serializer = null!;
    private byte[] _serialized = [];

    /// <summary>The serializer measured.</summary>
    [Params("json", "msgpack")]
    public string Format { get; set; } = "json";

    /// <summary>Makes the serializer and serializes the sample once for the read benchmark.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _serializer = Format == "json" ? new SystemTextJsonCubbySerializer() : new MessagePackCubbySerializer(Shapes.GeneratedTypeShapeProvider);
        _output.ResetWrittenCount();
        _serializer.Serialize(_sample, _output);
        _serialized = _output.WrittenSpan.ToArray();
    }

    /// <summary>Writes the object into a reused buffer.</summary>
    /// <returns>The bytes written.</returns>
    [Benchmark]
    public int Serialize()
    {
        _output.ResetWrittenCount();
        _serializer.Serialize(_sample, _output);
        return _output.WrittenCount;
    }

    /// <summary>Reads the object back.</summary>
    /// <returns>One of its fields.</returns>
    [Benchmark]
    public int Deserialize() => _serializer.Deserialize<ForecastSample>(_serialized)!.Humidity;

    [GenerateShapeFor<ForecastSample>]
    internal sealed partial class Shapes;
}
