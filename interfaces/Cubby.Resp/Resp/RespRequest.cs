using System.Buffers;
using System.Text;

namespace Cubby.Resp;

/// <summary>
/// One parsed command: its arguments, argument 0 being the command name. A connection reuses one instance for every
/// command it reads; the spans it hands out stay valid until the next parse into it (or <see cref="Dispose"/>), and,
/// when it <see cref="IsBorrowed"/> the received bytes, only until those are released: call <see cref="Own"/> first to
/// keep it longer.
/// </summary>
/// <remarks>
/// A command that arrived whole in one received block is read where it lies (<see cref="IsBorrowed"/>). Otherwise its
/// arguments are copied into one contiguous byte buffer rented from <see cref="ArrayPool{T}.Shared"/>. Offsets and
/// lengths live in a rented <see cref="int"/> array, so parsing allocates nothing once the buffers have grown to fit.
/// Buffers that grew beyond a modest size for one big command go back to the pool at the next parse.
/// </remarks>
public sealed class RespRequest : IDisposable
{
    private const int MinimumDataBytes = 256;
    private const int MinimumArgumentSlots = 8;
    private const int RetainedDataBytes = 64 * 1024;
    private const int RetainedArgumentSlots = 1024;

    // The rented buffer copied arguments live in.
    private byte[] _data = [];

    // The received block a command was parsed in place from; null when its arguments were copied into _data.
    private byte[]? _borrowed;

    // Two entries per argument: its start offset in _data, then its length.
    private int[] _bounds = [];
    private int _dataLength;

    /// <summary>The number of arguments, the command name included; 0 before the first successful parse.</summary>
    public int Count { get; private set; }

    /// <summary>True when the command arrived as an inline command line (such as <c>PING\r\n</c>) rather than a RESP array.</summary>
    public bool IsInline { get; private set; }

    /// <summary>
    /// True when the arguments are read in place from the received bytes they were parsed from, which the caller may
    /// release or reuse once it has run the command; <see cref="Own"/> copies them first.
    /// </summary>
    public bool IsBorrowed => _borrowed is not null;

    /// <summary>The bytes of one argument.</summary>
    /// <param name="index">From 0 (the command name) to <see cref="Count"/> - 1.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="index"/> is outside 0 to <see cref="Count"/> - 1.</exception>
    public ReadOnlySpan<byte> this[int index]
    {
        get
        {
            ArgumentOutOfRangeException.ThrowIfNegative(index);
            ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(index, Count);
            return (_borrowed ?? _data).AsSpan(_bounds[2 * index], _bounds[(2 * index) + 1]);
        }
    }

    /// <summary>Whether an argument equals ASCII text, ignoring case, as Redis compares command names and options.</summary>
    /// <param name="index">From 0 (the command name) to <see cref="Count"/> - 1.</param>
    /// <param name="asciiText">The text to compare with, such as <c>"GET"u8</c>.</param>
    public bool ArgumentEquals(int index, ReadOnlySpan<byte> asciiText) => Ascii.EqualsIgnoreCase(this[index], asciiText);

    /// <summary>Parses an argument as a 64-bit integer with Redis's rules (optional '-', no '+', no leading zeros).</summary>
    /// <param name="index">From 0 (the command name) to <see cref="Count"/> - 1.</param>
    /// <param name="value">The value, or 0 when the argument is not an integer.</param>
    public bool TryGetInt64(int index, out long value) => RespNumberParser.TryParseStrict(this[index], out value);

    /// <summary>Decodes an argument as UTF-8. Allocates: meant for logging and non-hot paths.</summary>
    /// <param name="index">From 0 (the command name) to <see cref="Count"/> - 1.</param>
    public string GetString(int index) => Encoding.UTF8.GetString(this[index]);

    /// <summary>Appends an argument: for building a command in code, such as one silo's share of a multi-key command.</summary>
    /// <param name="argument">The argument's bytes, copied.</param>
    public void Append(ReadOnlySpan<byte> argument) => argument.CopyTo(AppendArgument(argument.Length));

    /// <summary>
    /// Copies borrowed arguments into the request's own buffer, so they outlive the received bytes they were parsed
    /// from: for a command that is still running when the connection reads on.
    /// </summary>
    public void Own()
    {
        if (_borrowed is not { } received)
        {
            return;
        }

        var total = 0;
        for (var i = 0; i < Count; i++)
        {
            total += _bounds[(2 * i) + 1];
        }

        _borrowed = null;
        _dataLength = 0;
        EnsureDataCapacity(total);
        for (var i = 0; i < Count; i++)
        {
            var length = _bounds[(2 * i) + 1];
            received.AsSpan(_bounds[2 * i], length).CopyTo(_data.AsSpan(_dataLength));
            _bounds[2 * i] = _dataLength;
            _dataLength += length;
        }
    }

    /// <summary>
    /// Drops the first <paramref name="count"/> arguments, so a command wrapped in another (a forwarded call) can be
    /// run as itself.
    /// </summary>
    /// <param name="count">From 0 to <see cref="Count"/>.</param>
    public void RemoveLeading(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, Count);
        _bounds.AsSpan(2 * count, 2 * (Count - count)).CopyTo(_bounds);
        Count -= count;
    }

    /// <summary>Returns the pooled buffers and empties the request. Parsing into it again rents new buffers.</summary>
    public void Dispose()
    {
        Clear();
        ReturnData();
        ReturnBounds();
    }

    /// <summary>Empties the request before a parse, giving back buffers that one big command made large.</summary>
    public void Reset()
    {
        Clear();
        if (_data.Length > RetainedDataBytes)
        {
            ReturnData();
        }

        if (_bounds.Length > 2 * RetainedArgumentSlots)
        {
            ReturnBounds();
        }
    }

    /// <summary>Makes room for a RESP array command whose arguments have all arrived, so copying them never regrows.</summary>
    internal void Prepare(int arguments, int dataBytes)
    {
        EnsureArgumentSlots(arguments);
        EnsureDataCapacity(dataBytes);
    }

    /// <summary>
    /// Starts a command of <paramref name="arguments"/> arguments read in place from <paramref name="received"/>, each
    /// then registered with <see cref="AddBorrowedArgument"/>.
    /// </summary>
    internal void BeginBorrowed(byte[] received, int arguments)
    {
        EnsureArgumentSlots(arguments);
        _borrowed = received;
    }

    /// <summary>Registers an argument at <paramref name="start"/> in the array given to <see cref="BeginBorrowed"/>.</summary>
    internal void AddBorrowedArgument(int start, int length)
    {
        _bounds[2 * Count] = start;
        _bounds[(2 * Count) + 1] = length;
        Count++;
    }

    /// <summary>Adds an argument of <paramref name="length"/> bytes and returns the span to copy it into.</summary>
    internal Span<byte> AppendArgument(int length)
    {
        Own();
        EnsureArgumentSlots(Count + 1);
        EnsureDataCapacity(_dataLength + length);
        int start = _dataLength;
        AddBounds(start, length);
        return _data.AsSpan(start, length);
    }

    /// <summary>
    /// Starts an inline command: returns a span of <paramref name="maxBytes"/> (the line length, which unescaping
    /// never exceeds) for the tokenizer to write arguments into, each then registered with <see cref="AddInlineArgument"/>.
    /// </summary>
    internal Span<byte> BeginInline(int maxBytes)
    {
        IsInline = true;
        EnsureDataCapacity(maxBytes);
        return _data.AsSpan(0, maxBytes);
    }

    /// <summary>Registers an argument the tokenizer wrote into the span from <see cref="BeginInline"/>.</summary>
    internal void AddInlineArgument(int start, int length)
    {
        EnsureArgumentSlots(Count + 1);
        AddBounds(start, length);
    }

    private void AddBounds(int start, int length)
    {
        _bounds[2 * Count] = start;
        _bounds[(2 * Count) + 1] = length;
        _dataLength = start + length;
        Count++;
    }

    private void Clear()
    {
        Count = 0;
        _dataLength = 0;
        IsInline = false;
        _borrowed = null;
    }

    private void EnsureDataCapacity(int bytes)
    {
        if (bytes <= _data.Length)
        {
            return;
        }

        int size = (int)Math.Min(Math.Max(Math.Max(bytes, MinimumDataBytes), 2L * _data.Length), Array.MaxLength);
        byte[] grown = ArrayPool<byte>.Shared.Rent(Math.Max(size, bytes));
        _data.AsSpan(0, _dataLength).CopyTo(grown);
        ReturnData();
        _data = grown;
    }

    private void EnsureArgumentSlots(int arguments)
    {
        if (2L * arguments <= _bounds.Length)
        {
            return;
        }

        long wanted = Math.Max(Math.Max(arguments, MinimumArgumentSlots), _bounds.Length);
        int[] grown = ArrayPool<int>.Shared.Rent((int)Math.Min(2 * wanted, Array.MaxLength));
        _bounds.AsSpan(0, 2 * Count).CopyTo(grown);
        ReturnBounds();
        _bounds = grown;
    }

    private void ReturnData()
    {
        if (_data.Length > 0)
        {
            ArrayPool<byte>.Shared.Return(_data);
            _data = [];
        }
    }

    private void ReturnBounds()
    {
        if (_bounds.Length > 0)
        {
            ArrayPool<int>.Shared.Return(_bounds);
            _bounds = [];
        }
    }
}
