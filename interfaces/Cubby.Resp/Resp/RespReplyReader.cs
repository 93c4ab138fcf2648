using System.Buffers;
using System.Diagnostics;
using System.Globalization;
using System.Text;

namespace Cubby.Resp;

/// <summary>Reads RESP replies (any RESP2 or RESP3 type), such as a client receives from a server.</summary>
internal static class RespReplyReader
{
    // Nesting up to this depth is tracked on the stack; deeper limits rent the tracking array from the pool.
    private const int StackTrackedDepth = 64;

    /// <summary>
    /// Reads one whole reply, nested aggregates included. A RESP3 attribute before a reply (or before an element of
    /// an aggregate) is read and skipped. Nothing is allocated until the whole reply has arrived and been validated.
    /// </summary>
    /// <param name="buffer">Received bytes, from the first byte not yet consumed.</param>
    /// <param name="limits">Sizes, counts and nesting beyond which the reply is rejected.</param>
    /// <param name="value">The reply, on <see cref="RespParseStatus.Complete"/>; null otherwise.</param>
    /// <param name="consumed">Just after the reply on <see cref="RespParseStatus.Complete"/>; the start of the buffer otherwise.</param>
    /// <param name="error">What is wrong, on <see cref="RespParseStatus.Error"/>; null otherwise.</param>
    public static RespParseStatus TryRead(in ReadOnlySequence<byte> buffer, RespLimits limits, out RespValue? value, out SequencePosition consumed, out string? error)
    {
        value = null;
        RespParseStatus status = TrySkip(buffer, limits, out consumed, out error);
        if (status != RespParseStatus.Complete)
        {
            return status;
        }

        var reader = new SequenceReader<byte>(buffer.Slice(buffer.Start, consumed));
        value = ReadValidated(ref reader, limits);
        return status;
    }

    /// <summary>Finds the end of the next whole reply without allocating, validating it on the way.</summary>
    /// <param name="buffer">Received bytes, from the first byte not yet consumed.</param>
    /// <param name="limits">Sizes, counts and nesting beyond which the reply is rejected.</param>
    /// <param name="end">Just after the reply on <see cref="RespParseStatus.Complete"/>; the start of the buffer otherwise.</param>
    /// <param name="error">What is wrong, on <see cref="RespParseStatus.Error"/>; null otherwise.</param>
    public static RespParseStatus TrySkip(in ReadOnlySequence<byte> buffer, RespLimits limits, out SequencePosition end, out string? error)
    {
        ArgumentNullException.ThrowIfNull(limits);
        var reader = new SequenceReader<byte>(buffer);
        RespParseStatus status = SkipValue(ref reader, limits, out error);
        end = status == RespParseStatus.Complete ? reader.Position : buffer.Start;
        return status;
    }

    // Iterative, so a deep reply cannot exhaust the stack before the depth limit rejects it.
    private static RespParseStatus SkipValue(ref SequenceReader<byte> reader, RespLimits limits, out string? error)
    {
        int maxDepth = limits.MaxNestingDepth;
        long[]? rented = null;
        Span<long> pending = maxDepth < StackTrackedDepth
            ? stackalloc long[StackTrackedDepth]
            : (rented = ArrayPool<long>.Shared.Rent(maxDepth + 1));
        try
        {
            // pending[d] counts the values still expected at depth d; depth 0 expects the one reply.
            int depth = 0;
            pending[0] = 1;
            while (true)
            {
                RespParseStatus status = RespItemReader.TryRead(ref reader, limits, out RespItem item, out error);
                if (status != RespParseStatus.Complete)
                {
                    return status;
                }

                // An attribute describes the value after it, which its parent still expects.
                if (item.Type != RespType.Attribute)
                {
                    pending[depth]--;
                }

                if (item.IsAggregate && !item.IsNull)
                {
                    if (depth + 1 > maxDepth)
                    {
                        error = string.Create(CultureInfo.InvariantCulture, $"Protocol error: reply nested deeper than the limit of {maxDepth} levels");
                        return RespParseStatus.Error;
                    }

                    if (item.ElementCount > 0)
                    {
                        pending[++depth] = item.ElementCount;
                    }
                }

                while (pending[depth] == 0)
                {
                    if (depth == 0)
                    {
                        error = null;
                        return RespParseStatus.Complete;
                    }

                    depth--;
                }
            }
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<long>.Shared.Return(rented);
            }
        }
    }

    // Builds the value from bytes SkipValue has validated, so every read succeeds and every count is backed by bytes
    // that have arrived. Iterative, like SkipValue, so the nesting limit rather than the stack bounds the depth.
    private static RespValue ReadValidated(ref SequenceReader<byte> reader, RespLimits limits)
    {
        var open = new Stack<PendingAggregate>();
        while (true)
        {
            RespParseStatus status = RespItemReader.TryRead(ref reader, limits, out RespItem item, out _);
            Debug.Assert(status == RespParseStatus.Complete, "The reply was validated before it was read.");
            if (item.IsAggregate && !item.IsNull && item.ElementCount > 0)
            {
                open.Push(new PendingAggregate(item.Type, (int)item.ElementCount));
                continue;
            }

            // An attribute yields no value: the value it describes comes next.
            RespValue? completed = item.Type == RespType.Attribute ? null : ToValue(item);
            while (completed is not null)
            {
                if (open.Count == 0)
                {
                    return completed;
                }

                PendingAggregate parent = open.Peek();
                parent.Items[parent.Filled++] = completed;
                if (parent.Filled < parent.Items.Length)
                {
                    break;
                }

                open.Pop();
                completed = parent.Type == RespType.Attribute ? null : RespValue.Aggregate(parent.Type, parent.Items);
            }
        }
    }

    private static RespValue ToValue(in RespItem item)
    {
        if (item.IsNull)
        {
            return RespValue.Null(item.Type);
        }

        if (item.IsAggregate)
        {
            return RespValue.Aggregate(item.Type, []);
        }

        byte[] payload = item.Payload.ToArray();
        return item.Type == RespType.VerbatimString
            ? RespValue.Verbatim(Encoding.ASCII.GetString(payload, 0, 3), payload.AsMemory(4))
            : RespValue.Scalar(item.Type, payload, item.Integer, item.Double, item.Boolean);
    }
}
