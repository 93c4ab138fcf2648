using System.Buffers;

namespace Cubby.Resp;

/// <summary>
/// One RESP item as read off the wire: a scalar with its payload, or the header of an aggregate (its elements follow).
/// </summary>
internal readonly struct RespItem
{
    /// <summary>The item's type.</summary>
    public RespType Type { get; init; }

    /// <summary>True for the RESP2 nulls <c>$-1</c> and <c>*-1</c> and the RESP3 null <c>_</c>.</summary>
    public bool IsNull { get; init; }

    /// <summary>For aggregates, the number of values that follow: twice the pair count for maps and attributes.</summary>
    public long ElementCount { get; init; }

    /// <summary>For scalars, the bytes as sent (a verbatim string's include its <c>fmt:</c> prefix).</summary>
    public ReadOnlySequence<byte> Payload { get; init; }

    /// <summary>The value of an <see cref="RespType.Integer"/>.</summary>
    public long Integer { get; init; }

    /// <summary>The value of a <see cref="RespType.Double"/>.</summary>
    public double Double { get; init; }

    /// <summary>The value of a <see cref="RespType.Boolean"/>.</summary>
    public bool Boolean { get; init; }

    /// <summary>Whether values follow this item as its elements.</summary>
    public bool IsAggregate => Type is RespType.Array or RespType.Map or RespType.Set or RespType.Attribute or RespType.Push;
}
