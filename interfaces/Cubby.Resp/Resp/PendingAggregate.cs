namespace Cubby.Resp;

/// <summary>An aggregate being built while a reply is read: its elements so far.</summary>
internal sealed class PendingAggregate(RespType type, int elements)
{
    /// <summary>The aggregate's type; an attribute's elements are read and then dropped.</summary>
    public RespType Type { get; } = type;

    /// <summary>The elements, filled in order.</summary>
    public RespValue[] Items { get; } = new RespValue[elements];

    /// <summary>How many of <see cref="Items"/> have been read.</summary>
    public int Filled { get; set; }
}
