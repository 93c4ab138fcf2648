using Cubby.Load.Measurement;
using Cubby.Load.Resp;

namespace Cubby.Load;

/// <summary>A started server with the control connection the harness reads INFO and fills keys on.</summary>
internal sealed class ServerSession : IDisposable
{
    private ServerSession(ServerProcess server, RespConnection control)
    {
        Server = server;
        Control = control;
        Probe = new ServerProbe(server, control);
    }

    public ServerProcess Server { get; }

    public RespConnection Control { get; }

    public ServerProbe Probe { get; }

    public static async Task<ServerSession> StartAsync(ServerKind kind, ToolSet tools)
    {
        var server = await ServerProcess.StartAsync(kind, tools).ConfigureAwait(false);
        try
        {
            using var connecting = new CancellationTokenSource(TimeSpan.FromSeconds(10));
            return new ServerSession(server, await RespConnection.ConnectAsync(server.Port, connecting.Token).ConfigureAwait(false));
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
