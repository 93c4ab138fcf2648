using System.Runtime.CompilerServices;
using Cubby.Client.NearCaching;
using Cubby.Client.Tagging;

namespace Cubby.Client.Hybrid;

/// <summary>
/// An entry as this process keeps it: its payload, the tag keys and epochs it was written under, and, for a type
/// HybridCache counts immutable, the value itself, so a hit neither decodes nor deserializes. Kept with the near
/// cache's entry (<see cref="NearCaching.NearCacheEntry.Decoded"/>), or in the local store for an entry not written
/// to the cluster.
/// </summary>
internal sealed class LocalCopy : IDecodedValue
{
    private readonly nint _type;

    private LocalCopy(byte[] payload, int valueOffset, WrittenEpochs epochs, nint type, object? value, long localDeadline)
    {
        Payload = payload;
        ValueOffset = valueOffset;
        Epochs = epochs;
        _type = type;
        Value = value;
        LocalDeadline = localDeadline;
    }

    public byte[] Payload { get; }

    public int ValueOffset { get; }

    /// <summary>The epochs of <c>"*"</c> and of each tag as the entry was written under them, shared by the entries of one header.</summary>
    public WrittenEpochs Epochs { get; }

    /// <summary>The deserialized value, for immutable types; null for the others, deserialized on each read.</summary>
    public object? Value { get; }

    /// <summary>The <see cref="NearCacheClock"/> time after which this copy is not served (<c>LocalCacheExpiration</c>).</summary>
    public long LocalDeadline { get; }

    public ReadOnlyMemory<byte> Serialized => Payload.AsMemory(ValueOffset);

    /// <summary>
    /// A copy of <paramref name="payload"/> as a <typeparamref name="T"/>, or null when it is not an entry this cache
    /// wrote.
    /// </summary>
    public static LocalCopy? Of<T>(byte[] payload, HybridSerializers serializers, long localDeadline, WrittenEpochsTable written)
    {
        if (!TryReadHeader(payload, written, out var valueOffset, out var epochs))
        {
            return null;
        }

        var value = ImmutableTypes.Of<T>() ? (object?)serializers.Deserialize<T>(payload.AsMemory(valueOffset)) : null;
        return new LocalCopy(payload, valueOffset, epochs, HandleOf<T>(), value, localDeadline);
    }

    /// <summary>
    /// The copy of a value of an immutable type this process is writing, <paramref name="payload"/> being its encoding:
    /// the instance itself is kept, as HybridCache keeps what it is given, instead of decoding the payload again.
    /// </summary>
    public static LocalCopy? Written<T>(byte[] payload, T value, long localDeadline, WrittenEpochsTable written) =>
        ImmutableTypes.Of<T>() && TryReadHeader(payload, written, out var valueOffset, out var epochs)
            ? new LocalCopy(payload, valueOffset, epochs, HandleOf<T>(), value, localDeadline)
            : null;

    /// <summary>Whether this copy was decoded as a <typeparamref name="T"/>.</summary>
    public bool IsOf<T>() => _type == HandleOf<T>();

    public T Read<T>(HybridSerializers serializers)
    {
        if (Value is { } value && IsOf<T>())
        {
            // Exactly a T: no cast to check.
            return typeof(T).IsValueType ? (T)value : Unsafe.As<object, T>(ref value);
        }

        return serializers.Deserialize<T>(Serialized);
    }

    // A handle, not a Type: in code shared by reference types, typeof(T) as an object costs a call, its handle a load.
    private static nint HandleOf<T>() => RuntimeTypeHandle.ToIntPtr(typeof(T).TypeHandle);

    /// <summary>Where the value starts and the epochs it was written under, when the payload has a HybridCache header.</summary>
    private static bool TryReadHeader(byte[] payload, WrittenEpochsTable written, out int valueOffset, out WrittenEpochs epochs) =>
        written.TryRead(payload, out valueOffset, out epochs) && epochs.CarriesAll;
}
