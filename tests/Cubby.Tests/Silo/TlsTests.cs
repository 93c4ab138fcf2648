using Cubby.Resp;
using Cubby.Silo.Hosting;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Options;
using StackExchange.Redis;

namespace Cubby.Tests.Silo;

/// <summary>TLS on the RESP port (<c>Cubby:Tls</c>), through real clients: StackExchange.Redis and redis-cli --tls.</summary>
public sealed class TlsTests : IDisposable
{
    private readonly TestCertificate _certificate = new();

    [Fact]
    public async Task StackExchange_Redis_with_ssl_authenticates_and_round_trips_over_a_pkcs12_certificate()
    {
        await using var silo = await TestSilo.StartAsync(options =>
        {
            options.Tls.CertificatePath = _certificate.PfxPath;
            options.Tls.Password = TestCertificate.Password;
            options.Password = "secret";
        });
        var configuration = new ConfigurationOptions
        {
            EndPoints = { silo.Endpoints.RespTls },
            Ssl = true,
            SslHost = "localhost",
            Password = "secret",
            AbortOnConnectFail = true,
        };
        configuration.CertificateValidation += (_, certificate, _, _) => certificate?.GetCertHashString() == _certificate.Thumbprint;
        await using var redis = await ConnectionMultiplexer.ConnectAsync(configuration);
        var database = redis.GetDatabase();
        var large = new byte[1024 * 1024];
        Random.Shared.NextBytes(large);

        Assert.True(await database.StringSetAsync("tls:key", "over tls"));
        Assert.Equal("over tls", (string?)await database.StringGetAsync("tls:key"));
        Assert.True(await database.StringSetAsync("tls:large", large));
        Assert.Equal(large, (byte[]?)await database.StringGetAsync("tls:large"));
    }

    [Fact]
    public async Task Redis_cli_with_tls_talks_to_a_pem_certificate_on_a_second_port_beside_the_plain_one()
    {
        await using var silo = await TestSilo.StartAsync(options =>
        {
            options.Tls.CertificatePath = _certificate.PemPath;
            options.Tls.KeyPath = _certificate.KeyPath;
            options.Tls.Port = 0;
        });
        var tlsPort = silo.Endpoints.RespTls.Port;
        Assert.NotEqual(silo.RespEndPoint.Port, tlsPort);

        Assert.Equal("OK", (await RedisTools.CliOutputAsync(tlsPort, "--tls", "--cacert", _certificate.PemPath, "-h", "127.0.0.1", "SET", "tls:cli", "hello")).Trim());
        Assert.Equal("hello", (await RedisTools.CliOutputAsync(tlsPort, "--tls", "--cacert", _certificate.PemPath, "-h", "127.0.0.1", "GET", "tls:cli")).Trim());
        await using var plain = await silo.ConnectAsync();
        RespAssert.Bulk("hello", await plain.CallAsync("GET", "tls:cli"));
    }

    [Fact]
    public async Task A_plain_client_on_the_tls_port_gets_no_reply_and_the_silo_keeps_serving()
    {
        await using var silo = await TestSilo.StartAsync(options =>
        {
            options.Tls.CertificatePath = _certificate.PfxPath;
            options.Tls.Password = TestCertificate.Password;
        });

        var (exitCode, output, _) = await RedisTools.CliAsync(silo.Endpoints.RespTls.Port, "-h", "127.0.0.1", "PING");
        Assert.False(exitCode == 0 && output.Contains("PONG", StringComparison.Ordinal), $"a plain PING was answered over TLS: {output}");
        Assert.Equal("PONG", (await RedisTools.CliOutputAsync(silo.Endpoints.RespTls.Port, "--tls", "--cacert", _certificate.PemPath, "-h", "127.0.0.1", "PING")).Trim());
    }

    [Theory]
    [InlineData("missing")]
    [InlineData("wrong password")]
    [InlineData("not a certificate")]
    [InlineData("no key")]
    public async Task A_bad_certificate_stops_the_silo_at_start_naming_the_setting(string problem)
    {
        var garbage = Path.Combine(Path.GetDirectoryName(_certificate.PfxPath)!, "garbage.pfx");
        await File.WriteAllTextAsync(garbage, "not a certificate");
        var failure = await Assert.ThrowsAsync<OptionsValidationException>(() => TestSilo.StartAsync(options =>
        {
            (options.Tls.CertificatePath, options.Tls.Password) = problem switch
            {
                "missing" => (Path.Combine(Path.GetDirectoryName(_certificate.PfxPath)!, "absent.pfx"), null),
                "wrong password" => (_certificate.PfxPath, "wrong"),
                "not a certificate" => (garbage, null),
                _ => (_certificate.PemPath, null),
            };
        }));

        Assert.Contains("Cubby:Tls:CertificatePath", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Tls_settings_without_a_certificate_are_refused()
    {
        var options = new SiloOptions();
        options.Tls.Port = 6391;

        var result = new SiloOptionsValidator(TimeProvider.System).Validate(null, options);

        Assert.True(result.Failed);
        Assert.Contains("need Cubby:Tls:CertificatePath", result.FailureMessage, StringComparison.Ordinal);
    }

    public void Dispose() => _certificate.Dispose();
}
