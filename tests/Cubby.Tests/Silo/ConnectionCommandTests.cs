using System.Text;
using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>PING, ECHO, HELLO, AUTH, SELECT, QUIT and CLIENT, and how HELLO switches the protocol of the replies.</summary>
public sealed class ConnectionCommandTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    private readonly TestSilo _silo = fixture.Silo;

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Ping_replies_pong_or_echoes_its_message(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        RespAssert.SimpleString("PONG", await c.CallAsync("PING"));
        var reply = await c.CallAsync("PING", "hello world");
        Assert.Equal(RespType.BulkString, reply.Type);
        RespAssert.Bulk("hello world", reply);
        SiloClients.AssertError("ERR wrong number of arguments for 'ping' command", await c.CallAsync("PING", "a", "b"));
    }

    [Fact]
    public async Task Echo_replies_with_its_argument_byte_for_byte()
    {
        await using var c = await _silo.ConnectAsync();
        RespAssert.Bulk("Hello World", await c.CallAsync("ECHO", "Hello World"));
        RespAssert.Bulk("", await c.CallAsync("ECHO", ""));
        var bytes = Enumerable.Range(0, 256).Select(i => (byte)i).ToArray();
        Assert.Equal(bytes, (await c.CallAsync("ECHO", bytes)).Bytes.ToArray());
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Hello_replies_with_the_server_properties_in_the_chosen_protocol(int protocol)
    {
        await using var c = await _silo.ConnectAsync();
        var id = (await c.CallAsync("CLIENT", "ID")).Integer;
        var hello = SiloClients.AssertMap(await c.CallAsync("HELLO", protocol), protocol);
        Assert.Equal(["server", "version", "proto", "id", "mode", "role", "modules"], hello.Keys);
        Assert.StartsWith("7.", hello["version"].AsString(), StringComparison.Ordinal);
        RespAssert.Integer(protocol, hello["proto"]);
        RespAssert.Integer(id, hello["id"]);
        RespAssert.Bulk("standalone", hello["mode"]);
        RespAssert.Bulk("master", hello["role"]);
        Assert.Equal(RespType.Array, hello["modules"].Type);
        Assert.Empty(hello["modules"].Items);
    }

    [Fact]
    public async Task Hello_without_a_version_reports_the_current_protocol()
    {
        await using var c = await _silo.ConnectAsync();
        RespAssert.Integer(2, SiloClients.AssertMap(await c.CallAsync("HELLO"), 2)["proto"]);
        SiloClients.AssertMap(await c.CallAsync("HELLO", "3"), 3);
        RespAssert.Integer(3, SiloClients.AssertMap(await c.CallAsync("HELLO"), 3)["proto"]);
    }

    [Fact]
    public async Task After_hello_3_replies_use_RESP3_types_and_hello_2_switches_back()
    {
        await using var c = await _silo.ConnectAsync();
        var key = SiloClients.UniqueKey("conn");
        Assert.Equal(RespType.BulkString, (await c.CallAsync("GET", key)).Type);
        Assert.Equal(RespType.Array, (await c.CallAsync("CONFIG", "GET", "save")).Type);

        Assert.Equal(RespType.Map, (await c.CallAsync("HELLO", 3)).Type);
        Assert.Equal(RespType.Null, (await c.CallAsync("GET", key)).Type);
        Assert.Equal(RespType.Map, (await c.CallAsync("CONFIG", "GET", "save")).Type);
        Assert.Equal(RespType.Null, (await c.CallAsync("MGET", key)).Items[0].Type);

        Assert.Equal(RespType.Array, (await c.CallAsync("HELLO", 2)).Type);
        var nullBulk = await c.CallAsync("GET", key);
        Assert.Equal(RespType.BulkString, nullBulk.Type);
        Assert.True(nullBulk.IsNull);
    }

    [Theory]
    [InlineData("4", "NOPROTO unsupported protocol version")]
    [InlineData("1", "NOPROTO unsupported protocol version")]
    [InlineData("0", "NOPROTO unsupported protocol version")]
    [InlineData("three", "ERR Protocol version is not an integer or out of range")]
    [InlineData("3.0", "ERR Protocol version is not an integer or out of range")]
    public async Task Hello_with_an_unsupported_version_fails_and_keeps_the_protocol(string version, string error)
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError(error, await c.CallAsync("HELLO", version));
        Assert.Equal(RespType.BulkString, (await c.CallAsync("GET", SiloClients.UniqueKey("conn"))).Type);
        SiloClients.AssertMap(await c.CallAsync("HELLO", 3), 3);
        SiloClients.AssertError(error, await c.CallAsync("HELLO", version));
        Assert.Equal(RespType.Null, (await c.CallAsync("GET", SiloClients.UniqueKey("conn"))).Type);
    }

    [Fact]
    public async Task Hello_setname_names_the_connection()
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertMap(await c.CallAsync("HELLO", 3, "SETNAME", "my-app"), 3);
        RespAssert.Bulk("my-app", await c.CallAsync("CLIENT", "GETNAME"));
    }

    [Theory]
    [InlineData("3 SETNAME bad\nname", "ERR Client names cannot contain spaces, newlines or special characters.")]
    [InlineData("3 BOGUS", "ERR Syntax error in HELLO option 'BOGUS'")]
    [InlineData("3 SETNAME", "ERR Syntax error in HELLO option 'SETNAME'")]
    [InlineData("3 AUTH default", "ERR Syntax error in HELLO option 'AUTH'")]
    public async Task Hello_with_a_bad_option_fails_without_switching_protocol(string arguments, string error)
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError(error, await c.CallAsync(["HELLO", .. SiloClients.Words(arguments)]));
        Assert.Equal(RespType.BulkString, (await c.CallAsync("GET", SiloClients.UniqueKey("conn"))).Type);
        SiloClients.AssertNull(await c.CallAsync("CLIENT", "GETNAME"), 2);
    }

    [Fact]
    public async Task Auth_is_required_when_a_password_is_configured()
    {
        await using var silo = await TestSilo.StartAsync(o => o.Password = "s3cret");
        await using var c = await silo.ConnectAsync();
        RespAssert.Error("NOAUTH", await c.CallAsync("GET", "k"));
        RespAssert.Error("NOAUTH", await c.CallAsync("HELLO", 3));
        SiloClients.AssertError("WRONGPASS invalid username-password pair or user is disabled.", await c.CallAsync("AUTH", "wrong"));
        SiloClients.AssertError("WRONGPASS invalid username-password pair or user is disabled.", await c.CallAsync("AUTH", "admin", "s3cret"));
        RespAssert.Error("NOAUTH", await c.CallAsync("SET", "k", "v"));
        RespAssert.Ok(await c.CallAsync("AUTH", "s3cret"));
        RespAssert.Ok(await c.CallAsync("SET", "k", "v"));

        await using var other = await silo.ConnectAsync();
        SiloClients.AssertMap(await other.CallAsync("HELLO", 3, "AUTH", "default", "s3cret", "SETNAME", "app"), 3);
        RespAssert.Bulk("v", await other.CallAsync("GET", "k"));
        RespAssert.Bulk("app", await other.CallAsync("CLIENT", "GETNAME"));
    }

    [Fact]
    public async Task Auth_without_a_configured_password_behaves_as_Redis_with_a_nopass_default_user()
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError(
            "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?",
            await c.CallAsync("AUTH", "anything"));
        RespAssert.Ok(await c.CallAsync("AUTH", "default", "anything"));
        SiloClients.AssertMap(await c.CallAsync("HELLO", 3, "AUTH", "default", "anything"), 3);
        SiloClients.AssertError("ERR syntax error", await c.CallAsync("AUTH", "a", "b", "c"));
    }

    [Theory]
    [InlineData("0", null)]
    [InlineData("1", "ERR DB index is out of range")]
    [InlineData("-1", "ERR DB index is out of range")]
    [InlineData("16", "ERR DB index is out of range")]
    [InlineData("zero", "ERR value is not an integer or out of range")]
    public async Task Select_accepts_only_database_0(string index, string? error)
    {
        await using var c = await _silo.ConnectAsync();
        var reply = await c.CallAsync("SELECT", index);
        if (error is null)
        {
            RespAssert.Ok(reply);
        }
        else
        {
            SiloClients.AssertError(error, reply);
        }

        RespAssert.SimpleString("PONG", await c.CallAsync("PING"));
    }

    [Fact]
    public async Task Quit_replies_ok_then_closes_the_connection_without_running_later_commands()
    {
        await using var c = await _silo.ConnectAsync();
        var key = SiloClients.UniqueKey("conn");
        var pipeline = RespTestClient.Encode("QUIT").Concat(RespTestClient.Encode("SET", key, "v")).ToArray();
        await c.SendRawAsync(pipeline);
        RespAssert.Ok(await c.ReadAsync());
        Assert.True(await c.IsClosedByServerAsync());

        await using var other = await _silo.ConnectAsync();
        RespAssert.Integer(0, await other.CallAsync("EXISTS", key));
    }

    [Fact]
    public async Task Client_id_is_an_integer_unique_to_each_connection()
    {
        await using var a = await _silo.ConnectAsync();
        await using var b = await _silo.ConnectAsync();
        var idA = await a.CallAsync("CLIENT", "ID");
        var idB = await b.CallAsync("client", "id");
        Assert.Equal(RespType.Integer, idA.Type);
        Assert.True(idA.Integer > 0);
        Assert.NotEqual(idA.Integer, idB.Integer);
        RespAssert.Integer(idA.Integer, await a.CallAsync("CLIENT", "ID"));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Client_setname_and_getname(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        SiloClients.AssertNull(await c.CallAsync("CLIENT", "GETNAME"), protocol);
        RespAssert.Ok(await c.CallAsync("CLIENT", "SETNAME", "worker-1"));
        RespAssert.Bulk("worker-1", await c.CallAsync("CLIENT", "GETNAME"));
        SiloClients.AssertError("ERR Client names cannot contain spaces, newlines or special characters.", await c.CallAsync("CLIENT", "SETNAME", "has space"));
        RespAssert.Bulk("worker-1", await c.CallAsync("CLIENT", "GETNAME"));
        RespAssert.Ok(await c.CallAsync("CLIENT", "SETNAME", ""));
        SiloClients.AssertNull(await c.CallAsync("CLIENT", "GETNAME"), protocol);
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Client_info_describes_this_connection(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        var id = (await c.CallAsync("CLIENT", "ID")).Integer;
        RespAssert.Ok(await c.CallAsync("CLIENT", "SETNAME", "info-test"));
        var info = SiloClients.AssertText(await c.CallAsync("CLIENT", "INFO"), protocol);
        Assert.StartsWith($"id={id} ", info, StringComparison.Ordinal);
        Assert.Contains(" name=info-test ", info, StringComparison.Ordinal);
        Assert.Contains($" resp={protocol} ", info, StringComparison.Ordinal);
        Assert.EndsWith("\n", info, StringComparison.Ordinal);
        Assert.Single(info.Split('\n', StringSplitOptions.RemoveEmptyEntries));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Client_list_has_a_line_for_every_connection(int protocol)
    {
        await using var a = await _silo.ConnectAsync(protocol);
        await using var b = await _silo.ConnectAsync();
        var idA = (await a.CallAsync("CLIENT", "ID")).Integer;
        var idB = (await b.CallAsync("CLIENT", "ID")).Integer;
        RespAssert.Ok(await b.CallAsync("CLIENT", "SETNAME", "listed"));
        var lines = SiloClients.AssertText(await a.CallAsync("CLIENT", "LIST"), protocol).Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Contains(lines, line => line.StartsWith($"id={idA} ", StringComparison.Ordinal));
        Assert.Contains(lines, line => line.StartsWith($"id={idB} ", StringComparison.Ordinal) && line.Contains(" name=listed ", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Client_setinfo_records_the_library_and_shows_it_in_client_info()
    {
        await using var c = await _silo.ConnectAsync();
        RespAssert.Ok(await c.CallAsync("CLIENT", "SETINFO", "LIB-NAME", "my-lib"));
        RespAssert.Ok(await c.CallAsync("CLIENT", "SETINFO", "lib-ver", "1.2.3"));
        var info = (await c.CallAsync("CLIENT", "INFO")).AsString()!;
        Assert.Contains(" lib-name=my-lib ", info, StringComparison.Ordinal);
        Assert.Contains(" lib-ver=1.2.3", info, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("bogus x", "ERR Unrecognized option 'bogus'")]
    [InlineData("lib-name has\nnewline", "ERR lib-name cannot contain spaces, newlines or special characters.")]
    public async Task Client_setinfo_rejects_unknown_attributes_and_bad_values(string arguments, string error)
    {
        await using var c = await _silo.ConnectAsync();
        var words = arguments.Split(' ');
        SiloClients.AssertError(error, await c.CallAsync("CLIENT", "SETINFO", words[0], words[1]));
    }

    [Theory]
    [InlineData("BOGUS", "ERR unknown subcommand 'BOGUS'. Try CLIENT HELP.")]
    [InlineData("kill-all", "ERR unknown subcommand 'kill-all'. Try CLIENT HELP.")]
    public async Task An_unknown_client_subcommand_is_an_error(string subcommand, string error)
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError(error, await c.CallAsync("CLIENT", subcommand));
    }

    [Theory]
    [InlineData("CLIENT ID extra", "client|id")]
    [InlineData("CLIENT GETNAME extra", "client|getname")]
    [InlineData("CLIENT SETNAME", "client|setname")]
    [InlineData("CLIENT SETNAME a b", "client|setname")]
    [InlineData("CLIENT SETINFO lib-name", "client|setinfo")]
    [InlineData("CLIENT INFO extra", "client|info")]
    public async Task A_client_subcommand_with_the_wrong_number_of_arguments_names_the_subcommand(string request, string name)
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError($"ERR wrong number of arguments for '{name}' command", await c.CallAsync(SiloClients.Words(request)));
    }

    [Fact]
    public async Task Commands_sent_together_in_one_write_get_their_replies_in_order()
    {
        await using var c = await _silo.ConnectAsync();
        var key = SiloClients.UniqueKey("conn");
        var pipeline = new[] { RespTestClient.Encode("SET", key, "1"), RespTestClient.Encode("INCR", key), RespTestClient.Encode("GET", key), RespTestClient.Encode("ECHO", "done") };
        await c.SendRawAsync(pipeline.SelectMany(bytes => bytes).ToArray());
        RespAssert.Ok(await c.ReadAsync());
        RespAssert.Integer(2, await c.ReadAsync());
        RespAssert.Bulk("2", await c.ReadAsync());
        RespAssert.Bulk("done", await c.ReadAsync());
    }

    [Fact]
    public async Task Inline_commands_work_as_redis_cli_and_telnet_send_them()
    {
        await using var c = await _silo.ConnectAsync();
        var key = SiloClients.UniqueKey("conn");
        await c.SendRawAsync(Encoding.ASCII.GetBytes($"SET {key} \"hello world\"\r\nGET {key}\r\nPING\r\n"));
        RespAssert.Ok(await c.ReadAsync());
        RespAssert.Bulk("hello world", await c.ReadAsync());
        RespAssert.SimpleString("PONG", await c.ReadAsync());
    }
}
