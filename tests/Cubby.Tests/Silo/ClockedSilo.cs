using Cubby.Resp;
using Cubby.Silo.Hosting;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>A fresh silo on a fake clock with one connected client, for tests that move time or count every key.</summary>
internal sealed class ClockedSilo : IAsyncDisposable
{
    private ClockedSilo(FakeTimeProvider time, TestSilo silo, RespTestClient client)
    {
        Time = time;
        Silo = silo;
        Client = client;
    }

    public FakeTimeProvider Time { get; }

    public TestSilo Silo { get; }

    public RespTestClient Client { get; }

    /// <summary>The fake clock as Unix milliseconds; it starts on a whole second.</summary>
    public long NowMs => Time.UnixMilliseconds();

    public long NowSeconds => Time.UnixSeconds();

    public static async Task<ClockedSilo> StartAsync(int protocol = 2, Action<SiloOptions>? configure = null)
    {
        var time = new FakeTimeProvider();
        var silo = await TestSilo.StartAsync(configure, time);
        try
        {
            return new ClockedSilo(time, silo, await silo.ConnectAsync(protocol));
        }
        catch
        {
            await silo.DisposeAsync();
            throw;
        }
    }

    public Task<RespValue> CallAsync(params object[] arguments) => Client.CallAsync(arguments);

    public void Advance(long milliseconds) => Time.Advance(TimeSpan.FromMilliseconds(milliseconds));

    public async ValueTask DisposeAsync()
    {
        await Client.DisposeAsync();
        await Silo.DisposeAsync();
    }
}
