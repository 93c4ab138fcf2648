using System.Globalization;
using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>COMMAND, CONFIG and INFO, and the errors every command shares: wrong arity and unknown commands.</summary>
public sealed class ServerCommandTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    /// <summary>Every command the README lists, with Redis 7's arity (N: exactly N words with the name; -N: at least N).</summary>
    private static readonly (string Name, int Arity)[] Commands =
    [
        ("get", 2), ("set", -3), ("setnx", 3), ("setex", 4), ("psetex", 4), ("getex", -2), ("getdel", 2), ("mget", -2),
        ("mset", -3), ("msetnx", -3), ("append", 3), ("strlen", 2), ("getrange", 4), ("setrange", 4), ("incr", 2),
        ("decr", 2), ("incrby", 3), ("decrby", 3), ("incrbyfloat", 3),
        ("del", -2), ("unlink", -2), ("exists", -2), ("type", 2), ("expire", -3), ("pexpire", -3), ("expireat", -3),
        ("pexpireat", -3), ("persist", 2), ("ttl", 2), ("pttl", 2), ("expiretime", 2), ("pexpiretime", 2), ("scan", -2),
        ("keys", 2),
        ("ping", -1), ("echo", 2), ("hello", -1), ("auth", -2), ("select", 2), ("quit", -1), ("client", -2),
        ("command", -1), ("config", -2), ("info", -1), ("memory", -2), ("dbsize", 1), ("flushall", -1), ("flushdb", -1), ("save", 1), ("lastsave", 1),
        ("subscribe", -2), ("unsubscribe", -1), ("psubscribe", -2), ("punsubscribe", -1), ("publish", 3), ("pubsub", -2),
        ("cubby.get", 2), ("cubby.set", -3), ("cubby.refresh", 2), ("cubby.owner", 2),
    ];

    private readonly TestSilo _silo = fixture.Silo;

    public static TheoryData<string, int> WrongArgumentCounts()
    {
        var data = new TheoryData<string, int>();
        foreach (var (name, arity) in Commands)
        {
            if (arity > 0)
            {
                if (arity > 1)
                {
                    data.Add(name, arity - 1);
                }

                data.Add(name, arity + 1);
            }
            else if (arity < -1)
            {
                data.Add(name, -arity - 1);
            }
        }

        // PING takes at most one message although its arity is -1.
        data.Add("ping", 3);
        return data;
    }

    public static TheoryData<string, int> Arities()
    {
        var data = new TheoryData<string, int>();
        foreach (var (name, arity) in Commands)
        {
            data.Add(name, arity);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(WrongArgumentCounts))]
    public async Task Every_command_rejects_a_wrong_number_of_arguments(string name, int words)
    {
        await using var c = await _silo.ConnectAsync();
        object[] request = [name.ToUpperInvariant(), .. Enumerable.Repeat("x", words - 1)];
        SiloClients.AssertError($"ERR wrong number of arguments for '{name}' command", await c.CallAsync(request));
        RespAssert.SimpleString("PONG", await c.CallAsync("PING"));
    }

    [Theory]
    [MemberData(nameof(Arities))]
    public async Task Command_info_reports_each_command_with_Redis_arity(string name, int arity)
    {
        await using var c = await _silo.ConnectAsync();
        var info = (await c.CallAsync("COMMAND", "INFO", name.ToUpperInvariant())).Items;
        var command = Assert.Single(info);
        Assert.Equal(10, command.Items.Count);
        RespAssert.Bulk(name, command.Items[0]);
        RespAssert.Integer(arity, command.Items[1]);
    }

    [Theory]
    [InlineData("CONFIG GET", "config|get")]
    [InlineData("CONFIG SET maxmemory", "config|set")]
    [InlineData("COMMAND COUNT extra", "command|count")]
    [InlineData("MEMORY PURGE now", "memory|purge")]
    public async Task A_subcommand_with_the_wrong_number_of_arguments_names_the_subcommand(string request, string name)
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError($"ERR wrong number of arguments for '{name}' command", await c.CallAsync(SiloClients.Words(request)));
    }

    [Fact]
    public async Task An_unknown_command_is_named_with_its_arguments_and_the_connection_stays_open()
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError("ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' 'c' 'd' ", await c.CallAsync("NOSUCH", "a", "b", "c", "d"));
        RespAssert.Error("ERR unknown command 'nosuch'", await c.CallAsync("nosuch"));
        SiloClients.AssertError("ERR unknown command 'GETT', with args beginning with: 'k' ", await c.CallAsync("GETT", "k"));
        RespAssert.SimpleString("PONG", await c.CallAsync("PING"));
    }

    [Fact]
    public async Task An_unknown_command_echoes_at_most_128_bytes_of_arguments_on_one_line()
    {
        await using var c = await _silo.ConnectAsync();
        var reply = await c.CallAsync("NOSUCH", new string('a', 100), new string('b', 100), "line\r\nbreak");
        Assert.Equal(RespType.Error, reply.Type);
        var text = reply.AsString()!;
        Assert.Equal($"ERR unknown command 'NOSUCH', with args beginning with: '{new string('a', 100)}' '{new string('b', 25)}' ", text);
    }

    [Fact]
    public async Task Command_lists_every_command_with_its_details_and_count_agrees()
    {
        await using var c = await _silo.ConnectAsync();
        var all = await c.CallAsync("COMMAND");
        Assert.Equal(RespType.Array, all.Type);
        RespAssert.Integer(all.Items.Count, await c.CallAsync("COMMAND", "COUNT"));
        var names = all.Items.Select(command => command.Items[0].AsString()).ToHashSet();
        foreach (var (name, _) in Commands)
        {
            Assert.Contains(name, names);
        }

        Assert.All(all.Items, command => Assert.Equal(10, command.Items.Count));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Command_info_describes_flags_and_key_positions_and_is_null_for_unknown_commands(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        var reply = await c.CallAsync("COMMAND", "INFO", "get", "mset", "nosuch");
        Assert.Equal(3, reply.Items.Count);

        var get = reply.Items[0].Items;
        RespAssert.Bulk("get", get[0]);
        RespAssert.Integer(2, get[1]);
        Assert.Equal(protocol == 3 ? RespType.Set : RespType.Array, get[2].Type);
        Assert.Contains("readonly", RespAssert.Strings(get[2]));
        Assert.All(get[2].Items, flag => Assert.Equal(RespType.SimpleString, flag.Type));
        RespAssert.Integer(1, get[3]);
        RespAssert.Integer(1, get[4]);
        RespAssert.Integer(1, get[5]);

        var mset = reply.Items[1].Items;
        Assert.Contains("write", RespAssert.Strings(mset[2]));
        RespAssert.Integer(1, mset[3]);
        RespAssert.Integer(-1, mset[4]);
        RespAssert.Integer(2, mset[5]);

        Assert.True(reply.Items[2].IsNull);
        Assert.Equal(protocol == 3 ? RespType.Null : RespType.Array, reply.Items[2].Type);
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Command_docs_replies_with_a_map(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        SiloClients.AssertMap(await c.CallAsync("COMMAND", "DOCS"), protocol);
        SiloClients.AssertMap(await c.CallAsync("COMMAND", "DOCS", "get"), protocol);
    }

    [Fact]
    public async Task An_unknown_command_subcommand_is_an_error()
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError("ERR unknown subcommand 'BOGUS'. Try COMMAND HELP.", await c.CallAsync("COMMAND", "BOGUS"));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Config_get_replies_with_the_matching_parameters(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        var save = SiloClients.AssertMap(await c.CallAsync("CONFIG", "GET", "save"), protocol);
        RespAssert.Bulk("", Assert.Single(save).Value);
        var appendonly = SiloClients.AssertMap(await c.CallAsync("CONFIG", "GET", "appendonly"), protocol);
        RespAssert.Bulk("no", appendonly["appendonly"]);

        var max = SiloClients.AssertMap(await c.CallAsync("CONFIG", "GET", "max*"), protocol);
        Assert.Contains("maxmemory", max.Keys);
        Assert.Contains("maxmemory-policy", max.Keys);
        Assert.Contains("maxmemory-samples", max.Keys);
        Assert.All(max.Keys, name => Assert.StartsWith("max", name, StringComparison.Ordinal));
        RespAssert.Bulk((256L * 1024 * 1024).ToString(CultureInfo.InvariantCulture), max["maxmemory"]);

        var two = SiloClients.AssertMap(await c.CallAsync("CONFIG", "GET", "save", "appendonly"), protocol);
        Assert.Equal(2, two.Count);
        Assert.True(two.ContainsKey("save") && two.ContainsKey("appendonly"));
        Assert.Empty(SiloClients.AssertMap(await c.CallAsync("CONFIG", "GET", "no-such-parameter"), protocol));
    }

    [Fact]
    public async Task Config_get_port_is_the_port_actually_listened_on()
    {
        await using var c = await _silo.ConnectAsync();
        var port = SiloClients.AssertMap(await c.CallAsync("CONFIG", "GET", "port"), 2)["port"];
        RespAssert.Bulk(_silo.RespEndPoint.Port.ToString(CultureInfo.InvariantCulture), port);
    }

    [Fact]
    public async Task Config_set_is_refused_and_changes_nothing()
    {
        await using var c = await _silo.ConnectAsync();
        RespAssert.Error("ERR", await c.CallAsync("CONFIG", "SET", "maxmemory", "1"));
        RespAssert.Bulk((256L * 1024 * 1024).ToString(CultureInfo.InvariantCulture), SiloClients.AssertMap(await c.CallAsync("CONFIG", "GET", "maxmemory"), 2)["maxmemory"]);
        SiloClients.AssertError("ERR unknown subcommand 'BOGUS'. Try CONFIG HELP.", await c.CallAsync("CONFIG", "BOGUS"));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Info_replies_with_text_sections(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        var info = SiloClients.AssertText(await c.CallAsync("INFO"), protocol);
        foreach (var section in new[] { "# Server\r\n", "# Clients\r\n", "# Memory\r\n", "# Stats\r\n", "# Keyspace\r\n" })
        {
            Assert.Contains(section, info, StringComparison.Ordinal);
        }

        var fields = SiloClients.InfoFields(info);
        Assert.StartsWith("7.", fields["redis_version"], StringComparison.Ordinal);
        Assert.Equal("standalone", fields["redis_mode"]);
        Assert.True(long.Parse(fields["connected_clients"], CultureInfo.InvariantCulture) >= 1);
        Assert.Equal((256L * 1024 * 1024).ToString(CultureInfo.InvariantCulture), fields["maxmemory"]);
    }

    [Fact]
    public async Task Memory_purge_gives_free_memory_back_and_the_memory_section_reports_the_allocator()
    {
        await using var c = await _silo.ConnectAsync();
        await c.CallAsync("SET", "memory:purge", "kept");

        RespAssert.SimpleString("OK", await c.CallAsync("MEMORY", "PURGE"));
        RespAssert.Bulk("kept", await c.CallAsync("GET", "memory:purge"));
        Assert.StartsWith("MEMORY <subcommand>", (await c.CallAsync("MEMORY", "HELP")).Items[0].AsString(), StringComparison.Ordinal);
        RespAssert.Error("ERR unknown subcommand 'DOCTOR'. Try MEMORY HELP.", await c.CallAsync("MEMORY", "DOCTOR"));

        var fields = SiloClients.InfoFields((await c.CallAsync("INFO", "memory")).AsString()!);
        Assert.True(long.Parse(fields["allocator_allocated"], CultureInfo.InvariantCulture) > 0);
        Assert.True(long.Parse(fields["allocator_retained"], CultureInfo.InvariantCulture) >= 0);
        var kept = long.Parse(fields["maxmemory_kept_for_reuse"], CultureInfo.InvariantCulture);
        Assert.InRange(kept, 1, long.Parse(fields["maxmemory"], CultureInfo.InvariantCulture) / 8);

        // The GC heap's running total of bytes handed out: building the INFO reply alone adds to it.
        var allocatedBefore = long.Parse(fields["gc_allocated_bytes_total"], CultureInfo.InvariantCulture);
        var allocatedAfter = long.Parse(SiloClients.InfoFields((await c.CallAsync("INFO", "memory")).AsString()!)["gc_allocated_bytes_total"], CultureInfo.InvariantCulture);
        Assert.True(allocatedAfter > allocatedBefore, $"gc_allocated_bytes_total went from {allocatedBefore} to {allocatedAfter}");
    }

    [Fact]
    public async Task Info_with_a_section_replies_with_that_section_only()
    {
        await using var c = await _silo.ConnectAsync();
        var server = (await c.CallAsync("INFO", "server")).AsString()!;
        Assert.StartsWith("# Server\r\n", server, StringComparison.Ordinal);
        Assert.DoesNotContain("# Stats", server, StringComparison.Ordinal);
        Assert.DoesNotContain("# Keyspace", server, StringComparison.Ordinal);
        var fields = SiloClients.InfoFields(server);
        Assert.Equal(_silo.RespEndPoint.Port.ToString(CultureInfo.InvariantCulture), fields["tcp_port"]);
        Assert.True(fields.ContainsKey("uptime_in_seconds"));
        Assert.True(fields.ContainsKey("process_id"));

        var stats = (await c.CallAsync("INFO", "STATS")).AsString()!;
        Assert.StartsWith("# Stats\r\n", stats, StringComparison.Ordinal);
        Assert.DoesNotContain("# Server", stats, StringComparison.Ordinal);
        foreach (var field in new[] { "total_connections_received", "total_commands_processed", "keyspace_hits", "keyspace_misses", "expired_keys", "evicted_keys" })
        {
            Assert.True(SiloClients.InfoFields(stats).ContainsKey(field), $"INFO stats should have {field}");
        }
    }

    [Fact]
    public async Task Keyspace_hits_and_misses_count_lookups()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "v"));
        var before = await StatsAsync(s);
        RespAssert.Bulk("v", await s.CallAsync("GET", "k"));
        RespAssert.Null(await s.CallAsync("GET", "missing"));
        RespAssert.Null(await s.CallAsync("GET", "missing"));
        await s.CallAsync("MGET", "k", "missing");
        var after = await StatsAsync(s);
        Assert.Equal(before.Hits + 2, after.Hits);
        Assert.Equal(before.Misses + 3, after.Misses);
        Assert.True(after.Commands >= before.Commands + 4);
    }

    [Fact]
    public async Task Info_keyspace_counts_keys_and_keys_with_an_expiry()
    {
        await using var s = await ClockedSilo.StartAsync();
        Assert.Equal("# Keyspace\r\n", (await s.CallAsync("INFO", "keyspace")).AsString());
        RespAssert.Ok(await s.CallAsync("MSET", "a", "1", "b", "2", "c", "3"));
        RespAssert.Integer(1, await s.CallAsync("EXPIRE", "b", 100));
        RespAssert.Integer(1, await s.CallAsync("CUBBY.SET", "d", "4", "SLIDE", 1000));
        var fields = SiloClients.InfoFields((await s.CallAsync("INFO", "keyspace")).AsString()!);
        Assert.StartsWith("keys=4,expires=2,", fields["db0"], StringComparison.Ordinal);
    }

    private static async Task<(long Hits, long Misses, long Commands)> StatsAsync(ClockedSilo s)
    {
        var fields = SiloClients.InfoFields((await s.CallAsync("INFO", "stats")).AsString()!);
        return (
            long.Parse(fields["keyspace_hits"], CultureInfo.InvariantCulture),
            long.Parse(fields["keyspace_misses"], CultureInfo.InvariantCulture),
            long.Parse(fields["total_commands_processed"], CultureInfo.InvariantCulture));
    }
}
