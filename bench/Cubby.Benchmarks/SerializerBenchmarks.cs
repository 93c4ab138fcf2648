using System.Buffers;
using BenchmarkDotNet.Attributes;
using Cubby.Client.Serialization;

namespace Cubby.Benchmarks;

/// <summary>The client's default serializer (<see cref="SystemTextJsonCubbySerializer"/>) on a small object, each way.</summary>
[MemoryDiagnoser]
public class SerializerBenchmarks
{
    private readonly SystemTextJsonCubbySerializer _serializer = new();
    private readonly ArrayBufferWriter<byte> _output = new(1024);
    private readonly ForecastSample _sample = new()
    {
        City = "Lisbon",
        IssuedAt = new DateTimeOffset(2026, 11, 22, 6, 0, 0, TimeSpan.Zero),
        TemperatureC = 17.5,
        Humidity = 72,
        Hours = ["sun", "sun", "cloud", "rain", "rain", "cloud"],
    };

    private readonly byte[] _serialized;

    /// <summary>Serializes the sample once for the read benchmark.</summary>
    public SerializerBenchmarks()
    {
        _serializer.Serialize(_sample, _output);
        _serialized = _output.WrittenSpan.ToArray();
    }

    /// <summary>Writes the object as JSON into a reused buffer.</summary>
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
}
