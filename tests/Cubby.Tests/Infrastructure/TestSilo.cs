using System.Net;
using Cubby.Silo.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Cubby.Tests.Infrastructure;

/// <summary>A real silo in the test process: Kestrel on free loopback ports, optionally on fake time.</summary>
public sealed class TestSilo : IAsyncDisposable
{
    private readonly WebApplication _app;
    private bool _disposed;

    private TestSilo(WebApplication app)
    {
        _app = app;
        Endpoints = app.Services.GetRequiredService<SiloEndpoints>();
    }

    public SiloEndpoints Endpoints { get; }

    public IPEndPoint RespEndPoint => Endpoints.Resp;

    /// <summary>Its Orleans gateway endpoint, which Orleans clients (Cubby's gateway client) connect to.</summary>
    public IPEndPoint GatewayEndPoint => Services.GetRequiredService<global::Orleans.Runtime.ILocalSiloDetails>().GatewayAddress.Endpoint;

    /// <summary>Its Orleans silo endpoint, which other silos join at.</summary>
    public IPEndPoint SiloEndpoint => Services.GetRequiredService<global::Orleans.Runtime.ILocalSiloDetails>().SiloAddress.Endpoint;

    public IServiceProvider Services => _app.Services;

    /// <summary>The shard-grain calls this silo has received.</summary>
    public ShardCallCounter ShardCalls => _app.Services.GetRequiredService<ShardCallCounter>();

    internal SiloRuntime Runtime => _app.Services.GetRequiredService<SiloRuntime>();

    /// <param name="configure">Changes the silo's options.</param>
    /// <param name="time">The clock entries expire by (the silo's Orleans runtime stays on real time).</param>
    /// <param name="services">Adds services after the silo's, as an app hosting a silo does (such as <c>AddCubbyClient</c>).</param>
    public static async Task<TestSilo> StartAsync(Action<SiloOptions>? configure = null, TimeProvider? time = null, Action<IServiceCollection>? services = null)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        if (time is not null)
        {
            builder.Services.AddKeyedSingleton(Cubby.Grains.Hosting.CubbySiloBuilderExtensions.EntryClockKey, time);
        }

        builder.AddCubbySilo(options =>
        {
            options.UseEphemeralLoopbackPorts();
            options.MaxMemoryBytes = 256L * 1024 * 1024;
            configure?.Invoke(options);
        });
        builder.Services.AddSingleton<ShardCallCounter>();
        builder.Services.AddSingleton<IIncomingGrainCallFilter>(provider => provider.GetRequiredService<ShardCallCounter>());
        services?.Invoke(builder.Services);
        var app = builder.Build();
        app.MapCubbySilo();
        await app.StartAsync();
        return new TestSilo(app);
    }

    internal Task<RespTestClient> ConnectAsync() => RespTestClient.ConnectAsync(RespEndPoint);

    public async ValueTask DisposeAsync()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        await _app.StopAsync();
        await _app.DisposeAsync();
    }
}
