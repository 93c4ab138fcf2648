using Cubby.Grains.Commands.Hashes;
using Cubby.Grains.Commands.TwoKeys;
using Cubby.Text;
using static Cubby.Grains.Commands.CommandFlags;

namespace Cubby.Grains.Commands;

/// <summary>
/// Every command on keys, looked up by name straight from the request bytes: what a silo's RESP front door runs on the
/// shards it holds, and what a shard's grain runs for a command relayed from another silo.
/// </summary>
internal sealed class KeyCommandTable
{
    private readonly Dictionary<string, KeyCommand>.AlternateLookup<ReadOnlySpan<byte>> _byName;

    private KeyCommandTable()
    {
        var byName = new Dictionary<string, KeyCommand>(AsciiIgnoreCaseComparer.Instance);
        foreach (var command in All)
        {
            byName.Add(command.Name, command);
        }

        _byName = byName.GetAlternateLookup<ReadOnlySpan<byte>>();
    }

    public static KeyCommandTable Instance { get; } = new();

    public KeyCommand? Find(ReadOnlySpan<byte> name) => _byName.TryGetValue(name, out var command) ? command : null;

    /// <summary>In the order COMMAND lists them.</summary>
    public IReadOnlyList<KeyCommand> All { get; } =
    [
        // Strings
        new("get", 2, StringCommands.Get, Read, 1, 1, 1),
        new("set", -3, StringCommands.Set, Write, 1, 1, 1),
        new("setnx", 3, StringCommands.SetNx, Write, 1, 1, 1),
        new("setex", 4, StringCommands.SetEx, Write, 1, 1, 1),
        new("psetex", 4, StringCommands.PSetEx, Write, 1, 1, 1),
        new("getex", -2, StringCommands.GetEx, Write, 1, 1, 1),
        new("getdel", 2, StringCommands.GetDel, Write, 1, 1, 1),
        new("getset", 3, StringCommands.GetSet, Write, 1, 1, 1),
        new("mget", -2, StringCommands.MGet, Read, 1, -1, 1) { Merge = ReplyMerge.ByKey },
        new("mset", -3, StringCommands.MSet, Write, 1, -1, 2) { Merge = ReplyMerge.AllOk },
        new("msetnx", -3, StringCommands.MSetNx, Write, 1, -1, 2),
        new("append", 3, StringCommands.Append, Write, 1, 1, 1),
        new("strlen", 2, StringCommands.StrLen, Read, 1, 1, 1),
        KeyCommand.OnTwoKeys("lcs", -3, LcsCommand.Plan, ReadSlow),
        new("getrange", 4, StringCommands.GetRange, ReadSlow, 1, 1, 1),
        new("setrange", 4, StringCommands.SetRange, WriteSlow, 1, 1, 1),
        new("getbit", 3, BitCommands.GetBit, Read, 1, 1, 1),
        new("setbit", 4, BitCommands.SetBit, WriteSlow, 1, 1, 1),
        new("bitcount", -2, BitCommands.BitCount, ReadSlow, 1, 1, 1),
        new("bitpos", -3, BitCommands.BitPos, ReadSlow, 1, 1, 1),
        new("incr", 2, CounterCommands.Incr, Write, 1, 1, 1),
        new("decr", 2, CounterCommands.Decr, Write, 1, 1, 1),
        new("incrby", 3, CounterCommands.IncrBy, Write, 1, 1, 1),
        new("decrby", 3, CounterCommands.DecrBy, Write, 1, 1, 1),
        new("incrbyfloat", 3, CounterCommands.IncrByFloat, Write, 1, 1, 1),

        // Hashes
        new("hset", -4, HashCommands.HSet, Write, 1, 1, 1),
        new("hmset", -4, HashCommands.HMSet, Write, 1, 1, 1),
        new("hsetnx", 4, HashCommands.HSetNx, Write, 1, 1, 1),
        new("hget", 3, HashCommands.HGet, Read, 1, 1, 1),
        new("hmget", -3, HashCommands.HMGet, Read, 1, 1, 1),
        new("hdel", -3, HashCommands.HDel, Write, 1, 1, 1),
        new("hexists", 3, HashCommands.HExists, Read, 1, 1, 1),
        new("hlen", 2, HashCommands.HLen, Read, 1, 1, 1),
        new("hstrlen", 3, HashCommands.HStrLen, Read, 1, 1, 1),
        new("hkeys", 2, HashCommands.HKeys, ReadSlow, 1, 1, 1),
        new("hvals", 2, HashCommands.HVals, ReadSlow, 1, 1, 1),
        new("hgetall", 2, HashCommands.HGetAll, ReadSlow, 1, 1, 1),
        new("hincrby", 4, HashCommands.HIncrBy, Write, 1, 1, 1),
        new("hincrbyfloat", 4, HashCommands.HIncrByFloat, Write, 1, 1, 1),
        new("hscan", -3, HashCommands.HScan, ReadSlow, 1, 1, 1),
        new("hrandfield", -2, HashCommands.HRandField, ReadSlow, 1, 1, 1),

        // Keyspace
        new("del", -2, KeyspaceCommands.Del, WriteSlow, 1, -1, 1) { Merge = ReplyMerge.Sum },
        new("unlink", -2, KeyspaceCommands.Del, Write, 1, -1, 1) { Merge = ReplyMerge.Sum },
        new("exists", -2, KeyspaceCommands.Exists, Read, 1, -1, 1) { Merge = ReplyMerge.Sum },
        new("type", 2, KeyspaceCommands.Type, Read, 1, 1, 1),
        KeyCommand.OnTwoKeys("rename", 3, CopyCommands.Rename, WriteSlow),
        KeyCommand.OnTwoKeys("renamenx", 3, CopyCommands.RenameNx, WriteFastNoOom),
        KeyCommand.OnTwoKeys("copy", -3, CopyCommands.Copy, WriteNoFast),
        new("object", -2, ObjectCommand.Object, ReadSlow, 2, 2, 1),

        // Expiry
        new("expire", -3, ExpiryCommands.Expire, Write, 1, 1, 1),
        new("pexpire", -3, ExpiryCommands.PExpire, Write, 1, 1, 1),
        new("expireat", -3, ExpiryCommands.ExpireAt, Write, 1, 1, 1),
        new("pexpireat", -3, ExpiryCommands.PExpireAt, Write, 1, 1, 1),
        new("persist", 2, ExpiryCommands.Persist, Write, 1, 1, 1),
        new("ttl", 2, ExpiryCommands.Ttl, Read, 1, 1, 1),
        new("pttl", 2, ExpiryCommands.PTtl, Read, 1, 1, 1),
        new("expiretime", 2, ExpiryCommands.ExpireTime, Read, 1, 1, 1),
        new("pexpiretime", 2, ExpiryCommands.PExpireTime, Read, 1, 1, 1),

        // Cubby
        new("cubby.get", 2, CubbyCommands.Get, Read, 1, 1, 1),
        new("cubby.set", -3, CubbyCommands.Set, Write, 1, 1, 1),
        new("cubby.refresh", 2, CubbyCommands.Refresh, Read, 1, 1, 1),
        new("cubby.owner", 2, CubbyCommands.Owner, ReadSlow, 1, 1, 1),
    ];
}
