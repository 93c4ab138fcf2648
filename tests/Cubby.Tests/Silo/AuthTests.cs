using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

public sealed class AuthTests
{
    private const string Password = "s3cret pass";
    private const string NoAuth = "NOAUTH Authentication required.";
    private const string WrongPass = "WRONGPASS invalid username-password pair or user is disabled.";
    private const string NoPasswordConfigured = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?";

    [Theory]
    [InlineData("PING")]
    [InlineData("GET", "k")]
    [InlineData("SET", "k", "v")]
    [InlineData("CLIENT", "ID")]
    [InlineData("FLUSHALL")]
    public async Task Commands_before_auth_are_refused(params string[] command)
    {
        await using var silo = await StartWithPasswordAsync();
        await using var client = await silo.ConnectAsync();

        RespAssert.Error(NoAuth, await client.CallAsync(command.Cast<object>().ToArray()));

        RespAssert.Ok(await client.CallAsync("AUTH", Password));
        RespAssert.Null(await client.CallAsync("GET", "k"));
    }

    [Fact]
    public async Task Refused_writes_change_nothing()
    {
        await using var silo = await StartWithPasswordAsync();
        await using var stranger = await silo.ConnectAsync();
        await using var owner = await silo.ConnectAsync();
        RespAssert.Ok(await owner.CallAsync("AUTH", Password));
        RespAssert.Ok(await owner.CallAsync("SET", "k", "mine"));

        RespAssert.Error(NoAuth, await stranger.CallAsync("SET", "k", "theirs"));
        RespAssert.Error(NoAuth, await stranger.CallAsync("FLUSHALL"));

        RespAssert.Bulk("mine", await owner.CallAsync("GET", "k"));
    }

    [Fact]
    public async Task A_wrong_password_is_wrongpass_and_leaves_the_client_unauthenticated()
    {
        await using var silo = await StartWithPasswordAsync();
        await using var client = await silo.ConnectAsync();

        RespAssert.Error(WrongPass, await client.CallAsync("AUTH", "wrong"));
        RespAssert.Error(WrongPass, await client.CallAsync("AUTH", "default", "wrong"));
        RespAssert.Error(WrongPass, await client.CallAsync("AUTH", "someone", Password));
        RespAssert.Error(WrongPass, await client.CallAsync("AUTH", Password + " "));
        RespAssert.Error(NoAuth, await client.CallAsync("GET", "k"));
    }

    [Fact]
    public async Task Auth_with_the_password_alone_authenticates()
    {
        await using var silo = await StartWithPasswordAsync();
        await using var client = await silo.ConnectAsync();

        RespAssert.Ok(await client.CallAsync("AUTH", Password));

        RespAssert.Ok(await client.CallAsync("SET", "k", "v"));
        RespAssert.Bulk("v", await client.CallAsync("GET", "k"));
    }

    [Fact]
    public async Task Auth_as_the_default_user_authenticates()
    {
        await using var silo = await StartWithPasswordAsync();
        await using var client = await silo.ConnectAsync();

        RespAssert.Ok(await client.CallAsync("AUTH", "default", Password));

        RespAssert.SimpleString("PONG", await client.CallAsync("PING"));
    }

    [Fact]
    public async Task Authentication_belongs_to_one_connection()
    {
        await using var silo = await StartWithPasswordAsync();
        await using var authenticated = await silo.ConnectAsync();
        await using var other = await silo.ConnectAsync();

        RespAssert.Ok(await authenticated.CallAsync("AUTH", Password));

        RespAssert.Error(NoAuth, await other.CallAsync("PING"));
        await using var later = await silo.ConnectAsync();
        RespAssert.Error(NoAuth, await later.CallAsync("PING"));
    }

    [Fact]
    public async Task Hello_3_with_auth_authenticates_and_switches_protocol_in_one_call()
    {
        await using var silo = await StartWithPasswordAsync();
        await using var client = await silo.ConnectAsync();

        var hello = await client.CallAsync("HELLO", "3", "AUTH", "default", Password, "SETNAME", "app");

        Assert.Equal(RespType.Map, hello.Type);
        Assert.Equal(RespType.Null, (await client.CallAsync("GET", "missing")).Type);
        RespAssert.Bulk("app", await client.CallAsync("CLIENT", "GETNAME"));
    }

    [Fact]
    public async Task Hello_with_a_wrong_password_fails_and_keeps_resp2()
    {
        await using var silo = await StartWithPasswordAsync();
        await using var client = await silo.ConnectAsync();

        RespAssert.Error("WRONGPASS", await client.CallAsync("HELLO", "3", "AUTH", "default", "wrong"));
        RespAssert.Error("NOAUTH", await client.CallAsync("HELLO", "3"));

        RespAssert.Error(NoAuth, await client.CallAsync("GET", "k"));
        RespAssert.Ok(await client.CallAsync("AUTH", Password));
        var missing = await client.CallAsync("GET", "missing");
        Assert.Equal(RespType.BulkString, missing.Type);
        Assert.True(missing.IsNull);
    }

    [Fact]
    public async Task Quit_is_allowed_before_auth()
    {
        await using var silo = await StartWithPasswordAsync();
        await using var client = await silo.ConnectAsync();

        RespAssert.Ok(await client.CallAsync("QUIT"));
        Assert.True(await client.IsClosedByServerAsync());
    }

    [Fact]
    public async Task Auth_with_only_a_password_when_none_is_configured_is_the_redis_error()
    {
        await using var silo = await TestSilo.StartAsync();
        await using var client = await silo.ConnectAsync();

        RespAssert.Error(NoPasswordConfigured, await client.CallAsync("AUTH", "anything"));

        RespAssert.Ok(await client.CallAsync("SET", "k", "v"));
    }

    [Fact]
    public async Task Auth_as_default_when_no_password_is_configured_succeeds_as_in_redis()
    {
        // Redis 7: the default user is "nopass", so the two-argument form accepts any password for it.
        await using var silo = await TestSilo.StartAsync();
        await using var client = await silo.ConnectAsync();

        RespAssert.Ok(await client.CallAsync("AUTH", "default", "anything"));
        RespAssert.Error(WrongPass, await client.CallAsync("AUTH", "someone", "anything"));
        RespAssert.SimpleString("PONG", await client.CallAsync("PING"));
    }

    [Fact]
    public async Task Hello_3_with_auth_when_no_password_is_configured_succeeds_as_in_redis()
    {
        // Clients that are given a password send HELLO 3 AUTH default <password>; Redis without a password accepts it.
        await using var silo = await TestSilo.StartAsync();
        await using var client = await silo.ConnectAsync();

        var hello = await client.CallAsync("HELLO", "3", "AUTH", "default", "anything");

        Assert.Equal(RespType.Map, hello.Type);
        Assert.Equal(RespType.Null, (await client.CallAsync("GET", "missing")).Type);
    }

    private static Task<TestSilo> StartWithPasswordAsync() => TestSilo.StartAsync(options => options.Password = Password);

    [Fact]
    public async Task Before_auth_a_large_request_is_a_protocol_error_before_its_body_arrives()
    {
        await using var silo = await StartWithPasswordAsync();
        await using var client = await silo.ConnectAsync();

        await client.SendRawAsync(System.Text.Encoding.ASCII.GetBytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n"));

        RespAssert.Error("ERR Protocol error", await client.ReadAsync());
        Assert.True(await client.IsClosedByServerAsync());
        await using var authenticated = await silo.ConnectAsync();
        RespAssert.Ok(await authenticated.CallAsync("AUTH", Password));
        RespAssert.Ok(await authenticated.CallAsync("SET", "k", new string('v', 100000)));
    }
}
