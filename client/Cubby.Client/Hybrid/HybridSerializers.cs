using System.Buffers;
using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Client.Hybrid;

/// <summary>
/// The serializers HybridCache's registrations give (<c>AddSerializer</c>, <c>AddSerializerFactory</c>): a type's own
/// <see cref="IHybridCacheSerializer{T}"/> first, then the factories, the last registered first, down to the JSON one
/// <c>AddHybridCache</c> registers; <c>string</c> and <c>byte[]</c> as HybridCache registers them.
/// </summary>
internal sealed class HybridSerializers(IServiceProvider services)
{
    private readonly ConcurrentDictionary<Type, object> _serializers = new();
    private readonly IHybridCacheSerializerFactory[] _factories = [.. services.GetServices<IHybridCacheSerializerFactory>().Reverse()];

    public IHybridCacheSerializer<T> For<T>() =>
        _serializers.TryGetValue(typeof(T), out var serializer) ? Unsafe.As<IHybridCacheSerializer<T>>(serializer) : Resolve<T>();

    public T Deserialize<T>(ReadOnlyMemory<byte> bytes) => For<T>().Deserialize(new ReadOnlySequence<byte>(bytes));

    private IHybridCacheSerializer<T> Resolve<T>()
    {
        var serializer = services.GetService<IHybridCacheSerializer<T>>();
        foreach (var factory in _factories)
        {
            if (serializer is not null)
            {
                break;
            }

            factory.TryCreateSerializer(out serializer);
        }

        if (serializer is null)
        {
            throw new InvalidOperationException(
                $"No IHybridCacheSerializer<{typeof(T).Name}> is registered and no IHybridCacheSerializerFactory makes one; register one with AddSerializer or AddSerializerFactory.");
        }

        return (IHybridCacheSerializer<T>)_serializers.GetOrAdd(typeof(T), serializer);
    }
}
