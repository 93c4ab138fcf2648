namespace Cubby.Resp;

/// <summary>
/// Limits applied while parsing. Each is checked against the size a peer declares before any memory is
/// allocated for the item, so a hostile length header cannot make the parser reserve memory.
/// </summary>
public sealed record RespLimits
{
    /// <summary>The limits Cubby uses unless configured otherwise; the same as <c>new RespLimits()</c>.</summary>
    public static RespLimits Default { get; } = new();

    /// <summary>The largest bulk string (or bulk error, or verbatim string) accepted, in bytes. Default 16 MiB.</summary>
    public int MaxBulkBytes
    {
        get;
        init => field = Positive(value);
    } = 16 * 1024 * 1024;

    /// <summary>
    /// The most elements in one array, set or push (for maps and attributes, two per pair); for a command, the most
    /// arguments. Default 1,048,576.
    /// </summary>
    public int MaxArrayLength
    {
        get;
        init => field = Positive(value);
    } = 1024 * 1024;

    /// <summary>The longest inline command line, in bytes, not counting its line ending. Default 64 KiB.</summary>
    public int MaxInlineBytes
    {
        get;
        init => field = Positive(value);
    } = 64 * 1024;

    /// <summary>The most aggregates nested inside each other in one reply (a top-level array is depth 1). Replies only. Default 32.</summary>
    public int MaxNestingDepth
    {
        get;
        init => field = Positive(value);
    } = 32;

    /// <summary>
    /// The most argument bytes in one command, all arguments together; bounds the buffer one command can need.
    /// Default 1 GiB, the default client query buffer limit of Redis.
    /// </summary>
    public int MaxRequestBytes
    {
        get;
        init => field = Positive(value);
    } = 1024 * 1024 * 1024;

    private static int Positive(int value)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(value);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(value, System.Array.MaxLength);
        return value;
    }
}
