using Cubby.Client.NearCaching;

namespace Cubby.Client.Hybrid;

/// <summary>
/// An entry as this process keeps it: its payload, the tag keys and epochs it was written under, and, for a type
/// HybridCache counts immutable, the value itself, so a hit neither decodes nor deserializes. Kept with the near
/// cache's entry (<see cref="NearCaching.NearCacheEntry.Decoded"/>), or in the local store for an entry not written
/// to the cluster.
/// </summary>
internal sealed class LocalCopy
{
    private readonly NearCacheEntry?[] _heldBy;

    private LocalCopy(byte[] payload, HybridHeader header, Type type, object? value, long localDeadline)
    {
        Payload = payload;
        ValueOffset = header.ValueOffset;
        AllEpoch = header.AllEpoch;
        Tags = header.Tags.Length == 0 ? [] : Array.ConvertAll(header.Tags, static tag => (TagEpochs.KeyOf(tag.Tag), tag.Epoch));
        Type = type;
        Value = value;
        LocalDeadline = localDeadline;
        _heldBy = new NearCacheEntry?[Tags.Length + 1];
    }

    public byte[] Payload { get; }

    public int ValueOffset { get; }

    public long AllEpoch { get; }

    /// <summary>Each tag's epoch key and the epoch the entry was written under.</summary>
    public (string Key, long Epoch)[] Tags { get; }

    /// <summary>The type <see cref="Value"/> was deserialized as.</summary>
    public Type Type { get; }

    /// <summary>The deserialized value, for immutable types; null for the others, deserialized on each read.</summary>
    public object? Value { get; }

    /// <summary>The <see cref="NearCacheClock"/> time after which this copy is not served (<c>LocalCacheExpiration</c>).</summary>
    public long LocalDeadline { get; }

    public ReadOnlyMemory<byte> Serialized => Payload.AsMemory(ValueOffset);

    /// <summary>A copy of <paramref name="payload"/>, or null when it is not an entry this cache wrote.</summary>
    public static LocalCopy? Of<T>(byte[] payload, HybridSerializers serializers, long localDeadline)
    {
        if (!HybridPayload.TryRead(payload, out var header))
        {
            return null;
        }

        var value = ImmutableTypes.Of<T>() ? (object?)serializers.Deserialize<T>(payload.AsMemory(header.ValueOffset)) : null;
        return new LocalCopy(payload, header, typeof(T), value, localDeadline);
    }

    /// <summary>The value for a caller: the kept one for immutable types, a new one for the others.</summary>
    public T Read<T>(HybridSerializers serializers) => Value is T value ? value : serializers.Deserialize<T>(Serialized);

    /// <summary>
    /// Whether every epoch still holds; null when one of them is not kept here and must be asked for. The near cache's
    /// entries that held each epoch at the last check are remembered: while one may still be served, nothing changed
    /// its tag, and no lookup is needed.
    /// </summary>
    public bool? IsCurrentKept(TagEpochs epochs)
    {
        var held = _heldBy;
        for (var i = 0; i < held.Length; i++)
        {
            if (held[i] is { } entry && epochs.StillHolds(entry))
            {
                continue;
            }

            var (key, epoch) = i == 0 ? (TagEpochs.AllKey, AllEpoch) : Tags[i - 1];
            if (!epochs.TryGetKept(key, out var current, out var kept))
            {
                return null;
            }

            if (current != epoch)
            {
                return false;
            }

            held[i] = kept;
        }

        return true;
    }

    /// <summary>Whether every epoch still holds, asking the cluster for those not kept here.</summary>
    public async ValueTask<bool> IsCurrentAsync(TagEpochs epochs, CancellationToken cancellationToken)
    {
        if (await epochs.CurrentAsync(TagEpochs.AllKey, cancellationToken).ConfigureAwait(false) != AllEpoch)
        {
            return false;
        }

        foreach (var (key, epoch) in Tags)
        {
            if (await epochs.CurrentAsync(key, cancellationToken).ConfigureAwait(false) != epoch)
            {
                return false;
            }
        }

        return true;
    }
}
