using Cubby.Grains.Commands;
using Cubby.Silo.PubSub;
using Cubby.Silo.Transactions;
using Cubby.Text;
using static Cubby.Silo.Commands.DoorCommandFlags;

namespace Cubby.Silo.Commands;

/// <summary>Every command the silo serves, looked up by name straight from the request bytes.</summary>
internal sealed class CommandTable
{
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
        new("ping", -1, ConnectionCommands.Ping, Connection) { AllowedWhileSubscribed = true },
        new("echo", 2, ConnectionCommands.Echo, Connection),
        new("hello", -1, ConnectionCommands.Hello, Connection) { AllowedBeforeAuth = true },
        new("auth", -2, ConnectionCommands.Auth, Connection) { AllowedBeforeAuth = true },
        new("select", 2, ConnectionCommands.Select, Connection),
        new("quit", -1, ConnectionCommands.Quit, Connection) { AllowedBeforeAuth = true, ControlsTransaction = true, AllowedWhileSubscribed = true },
        new("client", -2, ConnectionCommands.Client, Admin) { HasSubcommands = true },

        // Server
        new("command", -1, ServerCommands.Command, Admin) { HasSubcommands = true },
        new("config", -2, ServerCommands.Config, Admin) { HasSubcommands = true },
        new("info", -1, ServerCommands.Info, Admin),
        new("memory", -2, MemoryCommand.Memory, Admin) { HasSubcommands = true },
        new("time", 1, ServerCommands.Time, Clock),
        new("cluster", -2, ServerCommands.Cluster, Admin) { HasSubcommands = true },
        new("function", -2, ServerCommands.Function, Admin) { HasSubcommands = true },
        new("dbsize", 1, WholeKeyspaceCommands.DbSize, Read) { WholeKeyspace = true },
        new("flushall", -1, WholeKeyspaceCommands.FlushAll, WriteSlow) { WholeKeyspace = true },
        new("flushdb", -1, WholeKeyspaceCommands.FlushAll, WriteSlow) { WholeKeyspace = true },
        new("save", 1, PersistenceCommands.Save, Admin) { WholeKeyspace = true },
        new("bgsave", -1, PersistenceCommands.BackgroundSave, Admin),
        new("lastsave", 1, PersistenceCommands.LastSave, Admin),

        // Transactions
        new("multi", 1, TransactionCommands.Multi, Transaction) { ControlsTransaction = true },
        new("exec", 1, TransactionCommands.Exec, TransactionSlow) { ControlsTransaction = true },
        new("discard", 1, TransactionCommands.Discard, Transaction) { ControlsTransaction = true },
        new("watch", -2, WatchCommands.Watch, Transaction) { ControlsTransaction = true },
        new("unwatch", 1, WatchCommands.Unwatch, Transaction),

        // Pub/sub
        new("subscribe", -2, PubSubCommands.Subscribe, Subscription) { AllowedWhileSubscribed = true },
        new("unsubscribe", -1, PubSubCommands.Unsubscribe, Subscription) { AllowedWhileSubscribed = true },
        new("psubscribe", -2, PubSubCommands.SubscribePattern, Subscription) { AllowedWhileSubscribed = true },
        new("punsubscribe", -1, PubSubCommands.UnsubscribePattern, Subscription) { AllowedWhileSubscribed = true },
        new("publish", 3, PubSubCommands.Publish, Publish),
        new("pubsub", -2, PubSubCommands.PubSub, PubSubQuery) { HasSubcommands = true },

        // Keyspace
        new("scan", -2, WholeKeyspaceCommands.Scan, ReadSlow) { WholeKeyspace = true },
        new("keys", 2, WholeKeyspaceCommands.Keys, ReadSlow) { WholeKeyspace = true },
        new("randomkey", 1, WholeKeyspaceCommands.RandomKey, ReadSlow) { WholeKeyspace = true },

        // Commands on keys, run in their shards' turns
        .. KeyCommandTable.Instance.All.Select(CommandDefinition.For),
    ]);
}
