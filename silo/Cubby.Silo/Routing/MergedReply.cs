using Cubby.Grains.Commands;
using Cubby.Resp;

namespace Cubby.Silo.Routing;

/// <summary>The one reply of a split multi-key command, assembled from its shares' replies as they come.</summary>
internal sealed class MergedReply(ReplyMerge merge, int keyCount)
{
    private const string Unexpected = "ERR internal error: a shard answered a share of a multi-key command with an unexpected reply";

    private readonly byte[]?[] _elements = new byte[keyCount][];
    private long _sum;

    /// <summary>The first error a share answered, which becomes the whole reply.</summary>
    public string? Error { get; private set; }

    public void Fail(string error) => Error ??= error;

    /// <summary>
    /// Adds a share's reply; <paramref name="positions"/> are its keys' positions, in the share's order, and
    /// <paramref name="boundaries"/> where a per-key array reply's header and elements end.
    /// </summary>
    public void Add(ReadOnlySpan<byte> reply, ReadOnlySpan<int> boundaries, List<int> positions)
    {
        if (RawReplies.IsError(reply))
        {
            Fail(System.Text.Encoding.UTF8.GetString(reply[1..^2]));
            return;
        }

        switch (merge)
        {
            case ReplyMerge.Sum when RawReplies.TryReadInteger(reply, out var value):
                _sum += value;
                break;
            case ReplyMerge.AllOk or ReplyMerge.None when reply.SequenceEqual("+OK\r\n"u8) || merge == ReplyMerge.None:
                _elements[0] ??= reply.ToArray();
                break;
            case ReplyMerge.ByKey when boundaries.Length == positions.Count + 1:
                for (var i = 0; i < positions.Count; i++)
                {
                    _elements[positions[i]] = reply[boundaries[i]..boundaries[i + 1]].ToArray();
                }

                break;
            default:
                Fail(Unexpected);
                break;
        }
    }

    public void WriteTo(RespWriter writer)
    {
        if (Error is not null)
        {
            writer.WriteError(Error);
            return;
        }

        switch (merge)
        {
            case ReplyMerge.Sum:
                writer.WriteInteger(_sum);
                break;
            case ReplyMerge.ByKey:
                writer.WriteArrayHeader(_elements.Length);
                foreach (var element in _elements)
                {
                    writer.WriteRaw(element);
                }

                break;
            default:
                writer.WriteRelayedReply(_elements[0] ?? "+OK\r\n"u8);
                break;
        }
    }
}
