using System.Buffers;
using System.Text.Json;
using Cubby.Client.Serialization;

namespace Cubby.Tests.Client;

/// <summary>A custom serializer whose output is recognizable on the silo: JSON after a fixed marker.</summary>
internal sealed class MarkedJsonSerializer : ICubbySerializer
{
    public static ReadOnlySpan<byte> Marker => "marked:"u8;

    public void Serialize<T>(T value, IBufferWriter<byte> destination)
    {
        destination.Write(Marker);
        using var writer = new Utf8JsonWriter(destination);
        JsonSerializer.Serialize(writer, value);
    }

    public T? Deserialize<T>(ReadOnlyMemory<byte> bytes) =>
        bytes.Span.StartsWith(Marker) ? JsonSerializer.Deserialize<T>(bytes.Span[Marker.Length..]) : throw new InvalidDataException("not written by this serializer");
}
