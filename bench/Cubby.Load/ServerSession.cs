using Cubby.Load.Measurement;
using StackExchange.Redis;

namespace Cubby.Load;

/// <summary>A started server with the control connection the harness reads INFO and fills keys on.</summary>
internal sealed class ServerSession : IDisposable
{
    private readonly long _started;

    private ServerSession(ServerProcess server, ConnectionMultiplexer control, long started)
    {
        _started = started;
        Server = server;
        Control = control;
        Probe = new ServerProbe(server, control);
    }

    public ServerProcess Server { get; }

    public ConnectionMultiplexer Control { get; }

    public ServerProbe Probe { get; }

    /// <summary>How long ago the server was started.</summary>
    public TimeSpan Age => TimeProvider.System.GetElapsedTime(_started);

    public static async Task<ServerSession> StartAsync(ServerKind kind, ToolSet tools, bool pinned)
    {
        var started = TimeProvider.System.GetTimestamp();
        var server = await ServerProcess.StartAsync(kind, tools, pinned: pinned).ConfigureAwait(false);
        try
        {
            return new ServerSession(server, await server.ConnectAsync(TimeSpan.FromSeconds(30)).ConfigureAwait(false), started);
        }
        catch
        {
            server.Dispose();
            throw;
        }
    }

    public void Dispose()
    {
        Control.Dispose();
        Server.Dispose();
    }
}
