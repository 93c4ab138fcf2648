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
    private LocalCopy(byte[] payload, int valueOffset, WrittenEpochs epochs, Type type, object? value, long localDeadline)
    {
        Payload = payload;
        ValueOffset = valueOffset;
        Epochs = epochs;
        Type = type;
        Value = value;
        LocalDeadline = localDeadline;
    }

    public byte[] Payload { get; }

    public int ValueOffset { get; }

    /// <summary>The epochs of <c>"*"</c> and of each tag as the entry was written under them.</summary>
    public WrittenEpochs Epochs { get; }

    /// <summary>The type <see cref="Value"/> was deserialized as.</summary>
    public Type Type { get; }

    /// <summary>The deserialized value, for immutable types; null for the others, deserialized on each read.</summary>
    public object? Value { get; }

    /// <summary>The <see cref="NearCacheClock"/> time after which this copy is not served (<c>LocalCacheExpiration</c>).</summary>
    public long LocalDeadline { get; }

    public ReadOnlyMemory<byte> Serialized => Payload.AsMemory(ValueOffset);

    /// <summary>
    /// A copy of <paramref name="payload"/>, or null when it is not an entry this cache wrote. When it has the header of
    /// <paramref name="earlier"/> (the copy of the value it replaced: most writes keep an entry's tags and their epochs),
    /// it shares that copy's epochs, and with them what their last check found.
    /// </summary>
    public static LocalCopy? Of<T>(byte[] payload, HybridSerializers serializers, long localDeadline, LocalCopy? earlier = null)
    {
        if (!TryReadHeader(payload, earlier, out var valueOffset, out var epochs))
        {
            return null;
        }

        var value = ImmutableTypes.Of<T>() ? (object?)serializers.Deserialize<T>(payload.AsMemory(valueOffset)) : null;
        return new LocalCopy(payload, valueOffset, epochs, typeof(T), value, localDeadline);
    }

    /// <summary>
    /// The copy of a value of an immutable type this process is writing, <paramref name="payload"/> being its encoding:
    /// the instance itself is kept, as HybridCache keeps what it is given, instead of decoding the payload again.
    /// </summary>
    public static LocalCopy? Written<T>(byte[] payload, T value, long localDeadline, LocalCopy? earlier) =>
        ImmutableTypes.Of<T>() && TryReadHeader(payload, earlier, out var valueOffset, out var epochs)
            ? new LocalCopy(payload, valueOffset, epochs, typeof(T), value, localDeadline)
            : null;

    /// <summary>Where the value starts and the epochs it was written under: <paramref name="earlier"/>'s, when the header is the same.</summary>
    private static bool TryReadHeader(byte[] payload, LocalCopy? earlier, out int valueOffset, out WrittenEpochs epochs)
    {
        if (earlier is not null && payload.AsSpan().StartsWith(earlier.Payload.AsSpan(0, earlier.ValueOffset)))
        {
            (valueOffset, epochs) = (earlier.ValueOffset, earlier.Epochs);
            return true;
        }

        if (TaggedPayload.TryRead(payload, out var header) && header.AllEpoch != 0)
        {
            (valueOffset, epochs) = (header.ValueOffset, new WrittenEpochs(header));
            return true;
        }

        (valueOffset, epochs) = (0, null!);
        return false;
    }

    public T Read<T>(HybridSerializers serializers) => Value is T value ? value : serializers.Deserialize<T>(Serialized);
}
