using System.Buffers;
using System.IO.Hashing;
using System.Runtime.CompilerServices;
using System.Text;

namespace Cubby.Sharding;

/// <summary>
/// Maps keys to slots: the xxHash64 (seed 0) of the key's UTF-8 bytes, or of its <c>{hash tag}</c> as Redis Cluster
/// defines it, modulo <see cref="SlotCount"/>.
/// </summary>
/// <remarks>
/// The slot of a key is part of the wire contract between clients and silos, so the mapping never depends on the
/// process, the machine or the runtime: the same key and slot count give the same slot everywhere.
/// </remarks>
public sealed class ShardMap
{
    /// <summary>The number of slots a cluster uses unless configured otherwise.</summary>
    public const int DefaultSlotCount = 1024;

    /// <summary>The largest number of slots a map may have.</summary>
    public const int MaxSlotCount = 65536;

    // Keys up to this many UTF-16 chars are encoded on the stack when their UTF-8 form fits; longer ones use the pool.
    private const int StackEncodeLimit = 256;

    /// <summary>Creates a map with <paramref name="slotCount"/> slots.</summary>
    /// <param name="slotCount">The number of slots, from 1 to <see cref="MaxSlotCount"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="slotCount"/> is below 1 or above <see cref="MaxSlotCount"/>.</exception>
    public ShardMap(int slotCount = DefaultSlotCount)
    {
        if (slotCount is < 1 or > MaxSlotCount)
        {
            throw new ArgumentOutOfRangeException(
                nameof(slotCount), slotCount, $"SlotCount must be between 1 and {MaxSlotCount}, but was {slotCount}.");
        }

        SlotCount = slotCount;
    }

    /// <summary>The number of slots keys are spread over; every slot is in <c>0 .. SlotCount - 1</c>.</summary>
    public int SlotCount { get; }

    /// <summary>Returns the slot of a key given as raw bytes (UTF-8 for text keys).</summary>
    /// <param name="key">The key's bytes.</param>
    /// <returns>The slot, from 0 to <see cref="SlotCount"/> - 1.</returns>
    public int SlotOf(ReadOnlySpan<byte> key) => (int)(XxHash64.HashToUInt64(HashTagOf(key)) % (uint)SlotCount);

    /// <summary>Returns the slot of a text key: the slot of its UTF-8 bytes.</summary>
    /// <param name="key">The key.</param>
    /// <returns>The slot, from 0 to <see cref="SlotCount"/> - 1.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is <see langword="null"/>.</exception>
    [SkipLocalsInit]
    public int SlotOf(string key)
    {
        ArgumentNullException.ThrowIfNull(key);

        // Every char takes at least one UTF-8 byte, so a longer key cannot fit the stack buffer.
        if (key.Length <= StackEncodeLimit)
        {
            Span<byte> buffer = stackalloc byte[StackEncodeLimit];
            if (Encoding.UTF8.TryGetBytes(key, buffer, out int written))
            {
                return SlotOf(buffer[..written]);
            }
        }

        return SlotOfPooled(key);
    }

    /// <summary>
    /// Returns the part of <paramref name="key"/> that decides its slot, by the Redis Cluster rule: when the key has a
    /// <c>{</c> and, after the first one, a <c>}</c> with at least one byte between them, those bytes; otherwise the whole key.
    /// </summary>
    /// <param name="key">The key's bytes.</param>
    /// <returns>The hash tag, or <paramref name="key"/> itself when it has none.</returns>
    /// <example><c>{user1000}.following</c> and <c>{user1000}.followers</c> share the tag <c>user1000</c>;
    /// <c>foo{}{bar}</c> has no tag; <c>foo{{bar}}zap</c> has the tag <c>{bar</c>.</example>
    public static ReadOnlySpan<byte> HashTagOf(ReadOnlySpan<byte> key)
    {
        int open = key.IndexOf((byte)'{');
        if (open < 0)
        {
            return key;
        }

        ReadOnlySpan<byte> afterOpen = key[(open + 1)..];
        int close = afterOpen.IndexOf((byte)'}');
        return close > 0 ? afterOpen[..close] : key;
    }

    private int SlotOfPooled(string key)
    {
        byte[] rented = ArrayPool<byte>.Shared.Rent(Encoding.UTF8.GetByteCount(key));
        try
        {
            int written = Encoding.UTF8.GetBytes(key, rented);
            return SlotOf(rented.AsSpan(0, written));
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(rented);
        }
    }
}
