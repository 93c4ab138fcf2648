using Cubby.Grains;
using Cubby.Resp;
using Cubby.Text;

namespace Cubby.Grains.Commands;

/// <summary>Collects the keys that match a pattern, copying them out of the grain's turn.</summary>
internal readonly struct MatchingKeys(byte[]? pattern, List<byte[]> keys) : IKeySink
{
    public void Add(ReadOnlySpan<byte> key)
    {
        if (pattern is null || GlobPattern.IsMatch(pattern, key))
        {
            keys.Add(key.ToArray());
        }
    }

    public static void WriteArray(RespWriter writer, List<byte[]> keys)
    {
        writer.WriteArrayHeader(keys.Count);
        foreach (var key in keys)
        {
            writer.WriteBulkString(key);
        }
    }
}
