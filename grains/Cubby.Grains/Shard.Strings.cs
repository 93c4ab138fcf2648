using System.Buffers;
using Cubby.Grains.Capacity;
using Cubby.Grains.Storage;
using Cubby.Text;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    /// <summary>Adds <paramref name="delta"/> to an integer value (INCR family); an absent entry counts as 0. Keeps the expiry.</summary>
    public UpdateStatus IncrementBy(ReadOnlySpan<byte> key, long delta, out long result)
    {
        Span<byte> text = stackalloc byte[RedisNumber.MaxInt64Length];
        RequireTurn();
        while (true)
        {
            result = 0;
            var now = Now();
            var index = FindString(key, now);
            long current = 0;
            if (index >= 0 && !RedisNumber.TryParseInt64(_store.ValueAt(index), out current))
            {
                return UpdateStatus.NotInteger;
            }

            if ((delta > 0 && current > long.MaxValue - delta) || (delta < 0 && current < long.MinValue - delta))
            {
                return UpdateStatus.Overflow;
            }

            result = current + delta;
            if (Finished(WriteValue(key, index, text[..RedisNumber.FormatInt64(result, text)], now)) is { } status)
            {
                return status;
            }
        }
    }

    /// <summary>
    /// Adds a float to a numeric value (INCRBYFLOAT); an absent entry counts as 0. Keeps the expiry. The new value's
    /// text, as stored, is written to <paramref name="text"/> (at least <see cref="RedisNumber.MaxDoubleLength"/> bytes).
    /// </summary>
    public UpdateStatus IncrementByFloat(ReadOnlySpan<byte> key, double delta, Span<byte> text, out int length)
    {
        RequireTurn();
        while (true)
        {
            length = 0;
            var now = Now();
            var index = FindString(key, now);
            double current = 0;
            if (index >= 0 && !RedisNumber.TryParseDouble(_store.ValueAt(index), out current))
            {
                return UpdateStatus.NotFloat;
            }

            if (!double.IsFinite(current + delta))
            {
                return UpdateStatus.NotFinite;
            }

            length = RedisNumber.FormatSum(current, delta, text);
            if (Finished(WriteValue(key, index, text[..length], now)) is { } status)
            {
                return status;
            }
        }
    }

    /// <summary>Appends to a value, creating it when absent (APPEND). Keeps the expiry.</summary>
    public UpdateStatus Append(ReadOnlySpan<byte> key, ReadOnlySpan<byte> suffix, out long length)
    {
        RequireTurn();
        while (true)
        {
            var now = Now();
            var index = FindString(key, now);
            var current = index >= 0 ? _store.ValueAt(index) : default;
            length = (long)current.Length + suffix.Length;
            if (length > _maxValueBytes)
            {
                return UpdateStatus.TooLarge;
            }

            if (Finished(Compose(key, index, current, current.Length, suffix, now)) is { } status)
            {
                return status;
            }
        }
    }

    /// <summary>Overwrites part of a value at <paramref name="offset"/>, padding with zero bytes (SETRANGE).</summary>
    public UpdateStatus SetRange(ReadOnlySpan<byte> key, long offset, ReadOnlySpan<byte> patch, out long length)
    {
        RequireTurn();
        while (true)
        {
            var now = Now();
            var index = FindString(key, now);
            var current = index >= 0 ? _store.ValueAt(index) : default;
            length = current.Length;
            if (patch.IsEmpty)
            {
                return UpdateStatus.Ok;
            }

            // Compared without adding, so a huge offset cannot overflow past the check.
            if (offset > _maxValueBytes - patch.Length)
            {
                return UpdateStatus.TooLarge;
            }

            length = Math.Max(current.Length, offset + patch.Length);
            if (Finished(Compose(key, index, current, (int)offset, patch, now)) is { } status)
            {
                return status;
            }
        }
    }

    /// <summary>Writes current[..offset] (zero-padded), then <paramref name="patch"/>, then the rest of current.</summary>
    private ChargeOutcome Compose(ReadOnlySpan<byte> key, int index, ReadOnlySpan<byte> current, int offset, ReadOnlySpan<byte> patch, long now)
    {
        var length = Math.Max(current.Length, offset + patch.Length);
        var buffer = ArrayPool<byte>.Shared.Rent(length);
        try
        {
            var composed = buffer.AsSpan(0, length);
            composed.Clear();
            current.CopyTo(composed);
            patch.CopyTo(composed[offset..]);
            return WriteValue(key, index, composed, now);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>Stores a new value for a key, keeping the entry's metadata when it exists.</summary>
    private ChargeOutcome WriteValue(ReadOnlySpan<byte> key, int index, ReadOnlySpan<byte> value, long now) =>
        Write(key, index, value, index >= 0 ? Touched(index, now) : EntryMetadata.Create(ExpirySpec.Never, 0, now), now);

    /// <summary>The status of a finished update, or null when eviction made room and the update must start over.</summary>
    private static UpdateStatus? Finished(ChargeOutcome charge) => charge switch
    {
        ChargeOutcome.Charged => UpdateStatus.Ok,
        ChargeOutcome.OutOfMemory => UpdateStatus.OutOfMemory,
        _ => null,
    };
}
