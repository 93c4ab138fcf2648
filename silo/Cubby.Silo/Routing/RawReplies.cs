using Cubby.Text;

namespace Cubby.Silo.Routing;

/// <summary>Reads the two scalar reply shapes a split multi-key command's shares answer with: an error, or an integer.</summary>
internal static class RawReplies
{
    public static bool IsError(ReadOnlySpan<byte> reply) => !reply.IsEmpty && reply[0] is (byte)'-' or (byte)'!';

    /// <summary>An integer reply's value (<c>:n</c>).</summary>
    public static bool TryReadInteger(ReadOnlySpan<byte> reply, out long value)
    {
        value = 0;
        return reply.Length > 3 && reply[0] == (byte)':' && RedisNumber.TryParseInt64(reply[1..^2], out value);
    }
}
