using Cubby.Grains.Hashes;
using Cubby.Resp;
using Cubby.Text;

namespace Cubby.Grains.Commands.Hashes;

/// <summary>HSET, HMSET and HSETNX: sets the request's field/value pairs (from argument 2), a later pair winning over an earlier one.</summary>
internal struct SetFields(RespRequest request, bool onlyIfAbsent) : IHashEdit
{
    /// <summary>How many fields did not exist before.</summary>
    public int Added { get; private set; }

    public bool Apply(HashFields current, ref HashBuilder next)
    {
        Added = 0;
        if (onlyIfAbsent && current.Contains(request[2]))
        {
            return false;
        }

        foreach (var entry in current)
        {
            var last = LastPairOf(entry.Field, request.Count);
            next.Add(entry.Field, last > 0 ? request[last + 1] : entry.Value);
        }

        // New fields in the order they first appear, each with its last value, as Redis applies the pairs one by one.
        for (var i = 2; i < request.Count; i += 2)
        {
            if (!current.Contains(request[i]) && FirstPairOf(request[i]) == i)
            {
                next.Add(request[i], request[LastPairOf(request[i], request.Count) + 1]);
                Added++;
            }
        }

        return true;
    }

    private readonly int FirstPairOf(ReadOnlySpan<byte> field)
    {
        var i = 2;
        while (!request[i].SequenceEqual(field))
        {
            i += 2;
        }

        return i;
    }

    /// <summary>The argument index of the last pair naming <paramref name="field"/>, or 0 when none does.</summary>
    private readonly int LastPairOf(ReadOnlySpan<byte> field, int count)
    {
        for (var i = count - 2; i >= 2; i -= 2)
        {
            if (request[i].SequenceEqual(field))
            {
                return i;
            }
        }

        return 0;
    }
}

/// <summary>HDEL: removes the request's fields (from argument 2).</summary>
internal struct DeleteFields(RespRequest request) : IHashEdit
{
    public int Removed { get; private set; }

    public bool Apply(HashFields current, ref HashBuilder next)
    {
        Removed = 0;
        foreach (var entry in current)
        {
            if (Named(entry.Field))
            {
                Removed++;
            }
            else
            {
                next.Add(entry.Field, entry.Value);
            }
        }

        return Removed > 0;
    }

    private readonly bool Named(ReadOnlySpan<byte> field)
    {
        for (var i = 2; i < request.Count; i++)
        {
            if (request[i].SequenceEqual(field))
            {
                return true;
            }
        }

        return false;
    }
}

/// <summary>What an increment of a hash field found.</summary>
internal enum FieldIncrement
{
    Done,
    NotInteger,
    NotFloat,
    Overflow,
    NotFinite,
}

/// <summary>HINCRBY and HINCRBYFLOAT: adds to a field's number, an absent field counting as 0.</summary>
/// <param name="request">HINCRBY or HINCRBYFLOAT: the field is argument 2.</param>
/// <param name="delta">HINCRBY's increment.</param>
/// <param name="floatDelta">HINCRBYFLOAT's increment.</param>
/// <param name="isFloat">Whether this is HINCRBYFLOAT.</param>
/// <param name="text">Receives the new value's text (at least <see cref="RedisNumber.MaxDoubleLength"/> bytes).</param>
internal ref struct IncrementField(RespRequest request, long delta, double floatDelta, bool isFloat, Span<byte> text) : IHashEdit
{
    private readonly Span<byte> _text = text;

    public FieldIncrement Outcome { get; private set; }

    public long Result { get; private set; }

    /// <summary>How many bytes of the text given are the new value, as stored (HINCRBYFLOAT's reply).</summary>
    public int TextLength { get; private set; }

    public bool Apply(HashFields current, ref HashBuilder next)
    {
        var field = request[2];
        var found = current.TryGet(field, out var value);
        Outcome = isFloat ? AddFloat(found, value) : AddInteger(found, value);
        if (Outcome != FieldIncrement.Done)
        {
            return false;
        }

        var stored = _text[..TextLength];
        foreach (var entry in current)
        {
            next.Add(entry.Field, entry.Field.SequenceEqual(field) ? stored : entry.Value);
        }

        if (!found)
        {
            next.Add(field, stored);
        }

        return true;
    }

    private FieldIncrement AddInteger(bool found, ReadOnlySpan<byte> value)
    {
        long current = 0;
        if (found && !RedisNumber.TryParseInt64(value, out current))
        {
            return FieldIncrement.NotInteger;
        }

        if ((delta > 0 && current > long.MaxValue - delta) || (delta < 0 && current < long.MinValue - delta))
        {
            return FieldIncrement.Overflow;
        }

        Result = current + delta;
        TextLength = RedisNumber.FormatInt64(Result, _text);
        return FieldIncrement.Done;
    }

    private FieldIncrement AddFloat(bool found, ReadOnlySpan<byte> value)
    {
        double current = 0;
        if (found && !RedisNumber.TryParseDouble(value, out current))
        {
            return FieldIncrement.NotFloat;
        }

        if (!double.IsFinite(current + floatDelta))
        {
            return FieldIncrement.NotFinite;
        }

        TextLength = RedisNumber.FormatSum(current, floatDelta, _text);
        return FieldIncrement.Done;
    }
}
