using System.Text;

namespace Cubby.Tests.Fuzz;

/// <summary>
/// Frames for fuzzing a silo: well-formed commands with hostile arguments (extreme and malformed numbers, empty and
/// binary strings, unknown options), those frames mutated, and random protocol-flavoured bytes. Every key it names
/// starts with <c>fuzz:</c>, and it never sends FLUSHALL, FLUSHDB or CONFIG SET, so other keys must survive it.
/// </summary>
internal sealed class HostileCommands(Random random)
{
    private static readonly string[] Commands =
    [
        "SET", "GET", "GETEX", "GETDEL", "GETSET", "GETRANGE", "SETRANGE", "APPEND", "STRLEN", "MGET", "MSET", "MSETNX",
        "SETNX", "SETEX", "PSETEX", "INCR", "DECR", "INCRBY", "DECRBY", "INCRBYFLOAT", "GETBIT", "SETBIT", "BITCOUNT",
        "BITPOS", "LCS", "HSET", "HSETNX", "HMSET", "HGET", "HMGET", "HDEL", "HEXISTS", "HLEN", "HSTRLEN", "HKEYS",
        "HVALS", "HGETALL", "HINCRBY", "HINCRBYFLOAT", "HSCAN", "HRANDFIELD", "DEL", "UNLINK", "EXISTS", "TYPE",
        "RENAME", "RENAMENX", "COPY", "RANDOMKEY", "OBJECT", "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "PERSIST",
        "TTL", "PTTL", "EXPIRETIME", "SCAN", "KEYS", "DBSIZE", "MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH", "PING",
        "ECHO", "HELLO", "AUTH", "SELECT", "CLIENT", "COMMAND", "CONFIG", "INFO", "TIME", "FUNCTION", "CLUSTER",
        "CUBBY.GET", "CUBBY.SET", "CUBBY.REFRESH", "CUBBY.OWNER", "NOSUCHCOMMAND",
    ];

    private static readonly string[] Arguments =
    [
        "0", "1", "-1", "2", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "99999999999999999999",
        "536870911", "4294967296", "-4294967296", "1.5", "-0", "1e400", "-1e400", "nan", "inf", "-inf", "0x10", " 1", "",
        "EX", "PX", "EXAT", "PXAT", "KEEPTTL", "NX", "XX", "GT", "LT", "GET", "PERSIST", "IDX", "LEN", "MINMATCHLEN",
        "WITHMATCHLEN", "WITHVALUES", "MATCH", "COUNT", "TYPE", "BYTE", "BIT", "REPLACE", "DB", "NOVALUES", "SLIDE",
        "FLAGS", "ENCODING", "IDLETIME", "HELP", "GETNAME", "SETNAME", "LIST", "*", "[", "\\", "?", "fuzz:*", "hash",
        "string", "3", "AUTH", "default", "UNKNOWNOPTION",
    ];

    public byte[] Next() => random.Next(10) switch
    {
        < 6 => Command(),
        < 9 => Mutate(Command()),
        _ => RandomBytes(),
    };

    private byte[] Command()
    {
        var arguments = new List<byte[]> { Encoding.ASCII.GetBytes(Pick(Commands)) };
        var count = random.Next(8);
        for (var i = 0; i < count; i++)
        {
            arguments.Add(Argument());
        }

        if (random.Next(20) == 0)
        {
            return Inline(arguments);
        }

        var frame = new MemoryStream();
        Write(frame, $"*{arguments.Count}\r\n");
        foreach (var argument in arguments)
        {
            Write(frame, $"${argument.Length}\r\n");
            frame.Write(argument);
            Write(frame, "\r\n");
        }

        return frame.ToArray();
    }

    private byte[] Argument() => random.Next(6) switch
    {
        0 => Encoding.ASCII.GetBytes("fuzz:" + random.Next(16)),
        1 => Binary(random.Next(64)),
        2 => random.Next(50) == 0 ? Binary(random.Next(100_000, 400_000)) : Encoding.ASCII.GetBytes(random.NextInt64().ToString(System.Globalization.CultureInfo.InvariantCulture)),
        _ => Encoding.ASCII.GetBytes(Pick(Arguments)),
    };

    private static byte[] Inline(List<byte[]> arguments) =>
        [.. string.Join(' ', arguments.Select(static a => Encoding.ASCII.GetString(a).Replace('\r', ' ').Replace('\n', ' '))).Select(static c => (byte)c), (byte)'\r', (byte)'\n'];

    private byte[] Mutate(byte[] frame)
    {
        var mutated = new List<byte>(frame);
        var edits = 1 + random.Next(4);
        for (var i = 0; i < edits && mutated.Count > 0; i++)
        {
            var at = random.Next(mutated.Count);
            switch (random.Next(5))
            {
                case 0:
                    mutated[at] = (byte)random.Next(256);
                    break;
                case 1:
                    mutated.RemoveRange(at, mutated.Count - at);
                    break;
                case 2:
                    mutated.InsertRange(at, Encoding.ASCII.GetBytes(Pick(["-1", "99999999999", "\r\n", "*", "$", "0"])));
                    break;
                case 3:
                    mutated.RemoveAt(at);
                    break;
                default:
                    mutated.InsertRange(at, mutated.GetRange(at, Math.Min(16, mutated.Count - at)));
                    break;
            }
        }

        return [.. mutated];
    }

    private byte[] RandomBytes()
    {
        ReadOnlySpan<byte> protocol = "*$:+-_#,(!=%~|>\r\n0123456789- \"'\\"u8;
        var bytes = new byte[random.Next(1, 200)];
        for (var i = 0; i < bytes.Length; i++)
        {
            bytes[i] = random.Next(3) == 0 ? (byte)random.Next(256) : protocol[random.Next(protocol.Length)];
        }

        return bytes;
    }

    private byte[] Binary(int length)
    {
        var bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }

    private string Pick(string[] choices) => choices[random.Next(choices.Length)];

    private static void Write(MemoryStream stream, string text) => stream.Write(Encoding.ASCII.GetBytes(text));
}
