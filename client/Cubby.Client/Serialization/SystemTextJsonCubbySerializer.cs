using System.Buffers;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;

namespace Cubby.Client.Serialization;

/// <summary>
/// The default serializer: System.Text.Json with the given options. Types are resolved through
/// <see cref="JsonSerializerOptions.GetTypeInfo"/>, so a source-generated context set as the options'
/// <see cref="JsonSerializerOptions.TypeInfoResolver"/> is used as is.
/// </summary>
/// <param name="options">The options; <see cref="JsonSerializerOptions.Web"/>'s defaults when null.</param>
public sealed class SystemTextJsonCubbySerializer(JsonSerializerOptions? options = null) : ICubbySerializer
{
    private readonly JsonSerializerOptions _options = Prepare(options);

    /// <inheritdoc />
    public void Serialize<T>(T value, IBufferWriter<byte> destination)
    {
        using var writer = new Utf8JsonWriter(destination);
        JsonSerializer.Serialize(writer, value, TypeInfo<T>());
    }

    /// <inheritdoc />
    public T? Deserialize<T>(ReadOnlyMemory<byte> bytes) => JsonSerializer.Deserialize(bytes.Span, TypeInfo<T>());

    private static JsonSerializerOptions Prepare(JsonSerializerOptions? options)
    {
        var prepared = options ?? new JsonSerializerOptions(JsonSerializerDefaults.Web);
        if (!prepared.IsReadOnly)
        {
            prepared.TypeInfoResolver ??= new DefaultJsonTypeInfoResolver();
            prepared.MakeReadOnly();
        }

        return prepared;
    }

    private JsonTypeInfo<T> TypeInfo<T>() => (JsonTypeInfo<T>)_options.GetTypeInfo(typeof(T));
}
