using System.Net;
using System.Net.Sockets;

namespace Cubby.Tests.Client;

/// <summary>
/// A TCP proxy in front of a silo that can hold back the silo's replies: commands still reach the silo and run, but
/// their replies wait in the proxy until <see cref="ResumeReplies"/>, so a test can act while a reply is pending.
/// </summary>
internal sealed class PausableProxy : IAsyncDisposable
{
    private readonly TcpListener _listener;
    private readonly IPEndPoint _target;
    private readonly CancellationTokenSource _stop = new();
    private readonly List<Socket> _sockets = [];
    private readonly Task _accepting;
    private TaskCompletionSource _replies = Open();

    private PausableProxy(TcpListener listener, IPEndPoint target)
    {
        _listener = listener;
        _target = target;
        _accepting = AcceptAsync();
    }

    public IPEndPoint EndPoint => (IPEndPoint)_listener.LocalEndpoint;

    /// <summary>Listens on <paramref name="listen"/> and forwards every connection to <paramref name="target"/>.</summary>
    public static PausableProxy Start(IPEndPoint listen, IPEndPoint target)
    {
        var listener = new TcpListener(listen);
        listener.Start();
        return new PausableProxy(listener, target);
    }

    public void PauseReplies()
    {
        lock (_sockets)
        {
            if (_replies.Task.IsCompleted)
            {
                _replies = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            }
        }
    }

    public void ResumeReplies()
    {
        lock (_sockets)
        {
            _replies.TrySetResult();
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync();
        _listener.Stop();
        lock (_sockets)
        {
            foreach (var socket in _sockets)
            {
                socket.Dispose();
            }

            _replies.TrySetResult();
        }

        await _accepting;
        _stop.Dispose();
    }

    private static TaskCompletionSource Open()
    {
        var open = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        open.SetResult();
        return open;
    }

    private async Task AcceptAsync()
    {
        var pumps = new List<Task>();
        try
        {
            while (true)
            {
                var client = await _listener.AcceptSocketAsync(_stop.Token);
                var silo = new Socket(_target.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
                client.NoDelay = true;
                lock (_sockets)
                {
                    _sockets.Add(client);
                    _sockets.Add(silo);
                }

                await silo.ConnectAsync(_target, _stop.Token);
                pumps.Add(PumpAsync(client, silo, holdable: false));
                pumps.Add(PumpAsync(silo, client, holdable: true));
            }
        }
        catch (Exception exception) when (exception is OperationCanceledException or SocketException or ObjectDisposedException)
        {
            // Stopped.
        }

        await Task.WhenAll(pumps);
    }

    private async Task PumpAsync(Socket from, Socket to, bool holdable)
    {
        var buffer = new byte[64 * 1024];
        try
        {
            while (true)
            {
                var read = await from.ReceiveAsync(buffer, SocketFlags.None, _stop.Token);
                if (read == 0)
                {
                    to.Shutdown(SocketShutdown.Send);
                    return;
                }

                if (holdable)
                {
                    Task open;
                    lock (_sockets)
                    {
                        open = _replies.Task;
                    }

                    await open.WaitAsync(_stop.Token);
                }

                await to.SendAsync(buffer.AsMemory(0, read), SocketFlags.None, _stop.Token);
            }
        }
        catch (Exception exception) when (exception is OperationCanceledException or SocketException or ObjectDisposedException)
        {
            // One side closed, or the proxy stopped.
        }
    }
}
