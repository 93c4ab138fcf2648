using System.Buffers;
using Cubby.Client.Serialization;
using Nerdbank.MessagePack;
using PolyType;

namespace Cubby.Client.MessagePack;

/// <summary>
/// Stores objects as MessagePack (Nerdbank.MessagePack): smaller and faster to read than JSON. Types are described by
/// PolyType shapes made by its source generator, so nothing is reflected over at run time and trimmed apps keep
/// working. List the cached types on a witness class and pass its provider:
/// <code>
/// [GenerateShapeFor&lt;Order&gt;]
/// [GenerateShapeFor&lt;Customer&gt;]
/// internal partial class CacheShapes;
///
/// services.AddCubbyClient(...).UseMessagePack(CacheShapes.GeneratedTypeShapeProvider);
/// </code>
/// </summary>
/// <param name="shapes">The shapes of the types the app caches.</param>
/// <param name="serializer">Nerdbank.MessagePack's settings; its defaults when null.</param>
public sealed class MessagePackCubbySerializer(ITypeShapeProvider shapes, MessagePackSerializer? serializer = null) : ICubbySerializer
{
    private readonly ITypeShapeProvider _shapes = shapes ?? throw new ArgumentNullException(nameof(shapes));
    private readonly MessagePackSerializer _serializer = serializer ?? new MessagePackSerializer();

    /// <inheritdoc />
    public void Serialize<T>(T value, IBufferWriter<byte> destination) => _serializer.Serialize(destination, value, ShapeOf<T>());

    /// <inheritdoc />
    public T? Deserialize<T>(ReadOnlyMemory<byte> bytes) => _serializer.Deserialize(bytes, ShapeOf<T>());

    private ITypeShape<T> ShapeOf<T>() =>
        _shapes.GetTypeShape(typeof(T)) as ITypeShape<T>
            ?? throw new NotSupportedException(
                $"The MessagePack serializer has no shape for {typeof(T).FullName}: add [GenerateShapeFor<{typeof(T).Name}>] to the witness class whose shape provider was given to it.");
}
