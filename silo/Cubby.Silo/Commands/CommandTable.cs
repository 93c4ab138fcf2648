using Cubby.Silo.Commands.TwoKeys;
using Cubby.Silo.Commands.Hashes;
using Cubby.Silo.Routing;
using Cubby.Silo.Transactions;

namespace Cubby.Silo.Commands;

/// <summary>Every command the silo serves, looked up by name straight from the request bytes.</summary>
internal sealed class CommandTable
{
    private static readonly string[] Read = ["readonly", "fast"];
    private static readonly string[] Write = ["write", "denyoom", "fast"];
    private static readonly string[] WriteSlow = ["write"];
    private static readonly string[] WriteNoFast = ["write", "denyoom"];
    private static readonly string[] WriteFastNoOom = ["write", "fast"];
    private static readonly string[] ReadSlow = ["readonly"];
    private static readonly string[] Connection = ["fast", "no-auth"];
    private static readonly string[] Admin = ["loading", "stale"];
    private static readonly string[] Clock = ["random", "loading", "stale", "fast"];
    private static readonly string[] Transaction = ["noscript", "loading", "stale", "fast", "allow_busy"];
    private static readonly string[] TransactionSlow = ["noscript", "loading", "stale", "skip_slowlog"];

    private readonly Dictionary<string, CommandDefinition>.AlternateLookup<ReadOnlySpan<byte>> _byName;

    private CommandTable(IReadOnlyList<CommandDefinition> commands)
    {
        All = [.. commands.Select(static (command, index) => command with { Index = index })];
        var byName = new Dictionary<string, CommandDefinition>(AsciiIgnoreCaseComparer.Instance);
        foreach (var command in All)
        {
            byName.Add(command.Name, command);
        }

        _byName = byName.GetAlternateLookup<ReadOnlySpan<byte>>();
    }

    public IReadOnlyList<CommandDefinition> All { get; }

    public CommandDefinition? Find(ReadOnlySpan<byte> name) => _byName.TryGetValue(name, out var command) ? command : null;

    public static CommandTable Create() => new(
    [
        // Connection
        new("ping", -1, ConnectionCommands.Ping, Connection),
        new("echo", 2, ConnectionCommands.Echo, Connection),
        new("hello", -1, ConnectionCommands.Hello, Connection) { AllowedBeforeAuth = true },
        new("auth", -2, ConnectionCommands.Auth, Connection) { AllowedBeforeAuth = true },
        new("select", 2, ConnectionCommands.Select, Connection),
        new("quit", -1, ConnectionCommands.Quit, Connection) { AllowedBeforeAuth = true, ControlsTransaction = true },
        new("client", -2, ConnectionCommands.Client, Admin),

        // Server
        new("command", -1, ServerCommands.Command, Admin),
        new("config", -2, ServerCommands.Config, Admin),
        new("info", -1, ServerCommands.Info, Admin),
        new("memory", -2, MemoryCommand.Memory, Admin),
        new("time", 1, ServerCommands.Time, Clock),
        new("cluster", -2, ServerCommands.Cluster, Admin),
        new("function", -2, ServerCommands.Function, Admin),
        new("dbsize", 1, KeyspaceCommands.DbSize, Read) { WholeKeyspace = true },
        new("flushall", -1, KeyspaceCommands.FlushAll, WriteSlow) { WholeKeyspace = true },
        new("flushdb", -1, KeyspaceCommands.FlushAll, WriteSlow) { WholeKeyspace = true },

        // Transactions
        new("multi", 1, TransactionCommands.Multi, Transaction) { ControlsTransaction = true },
        new("exec", 1, TransactionCommands.Exec, TransactionSlow) { ControlsTransaction = true },
        new("discard", 1, TransactionCommands.Discard, Transaction) { ControlsTransaction = true },
        new("watch", -2, WatchCommands.Watch, Transaction) { ControlsTransaction = true },
        new("unwatch", 1, WatchCommands.Unwatch, Transaction),

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
        new("lcs", -3, LcsCommand.Lcs, ReadSlow, 1, 2, 1) { RunHeld = LcsCommand.LcsHeld },
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
        new("rename", 3, CopyCommands.Rename, WriteSlow, 1, 2, 1) { RunHeld = CopyCommands.RenameHeld },
        new("renamenx", 3, CopyCommands.RenameNx, WriteFastNoOom, 1, 2, 1) { RunHeld = CopyCommands.RenameNxHeld },
        new("copy", -3, CopyCommands.Copy, WriteNoFast, 1, 2, 1) { RunHeld = CopyCommands.CopyHeld },
        new("scan", -2, KeyspaceCommands.Scan, ReadSlow) { WholeKeyspace = true },
        new("keys", 2, KeyspaceCommands.Keys, ReadSlow) { WholeKeyspace = true },
        new("object", -2, ObjectCommand.Object, ReadSlow, 2, 2, 1),
        new("randomkey", 1, KeyspaceCommands.RandomKey, ReadSlow) { WholeKeyspace = true },

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
    ]);
}
