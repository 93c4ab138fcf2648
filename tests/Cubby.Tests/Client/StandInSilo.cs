using System.Collections.Concurrent;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Cubby.Tests.Client;

/// <summary>
/// A test stand-in for a silo, not a silo: a few lines of RESP over a socket that answer HELLO and CUBBY.VIEW with a
/// view naming themselves, let the test script every other command (answer, hold, or drop the connection) and send
/// RESP3 pushes such as <c>cubby.view</c>, so the client's side of pushes and lost connections can be tested on its own.
/// </summary>
internal sealed class StandInSilo : IAsyncDisposable
{
    /// <summary>What <see cref="OnCommand"/> returns to close the connection instead of replying.</summary>
    public static readonly byte[] DropConnection = [];

    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly CancellationTokenSource _stop = new();
    private readonly ConcurrentDictionary<Socket, byte> _open = new();
    private readonly Task _accepting;

    private StandInSilo()
    {
        _listener.Start();
        _accepting = AcceptAsync();
    }

    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

    /// <summary>Every command received (arguments joined by spaces), in order.</summary>
    public ConcurrentQueue<string> Commands { get; } = new();

    /// <summary>Client connections not closed yet.</summary>
    public int OpenConnections => _open.Count;

    /// <summary>Answers a command other than HELLO and CUBBY.VIEW: the raw reply, or <see cref="DropConnection"/>.</summary>
    public Func<string[], Task<byte[]>> OnCommand { get; set; } = _ => Task.FromResult("-ERR not scripted\r\n"u8.ToArray());

    /// <summary>The CUBBY.VIEW reply: by default version 1 with this stand-in as the only silo.</summary>
    public byte[]? ViewReply { get; set; }

    public static StandInSilo Start() => new();

    /// <summary>A CUBBY.VIEW reply: version, 1024 slots, and each silo as id, host, port.</summary>
    public static byte[] View(long version, params (string Id, int Port)[] silos)
    {
        var text = new StringBuilder().Append(CultureInfo.InvariantCulture, $"*3\r\n:{version}\r\n:1024\r\n*{silos.Length}\r\n");
        foreach (var (id, port) in silos)
        {
            text.Append(CultureInfo.InvariantCulture, $"*3\r\n${id.Length}\r\n{id}\r\n$9\r\n127.0.0.1\r\n:{port}\r\n");
        }

        return Encoding.ASCII.GetBytes(text.ToString());
    }

    /// <summary>The push a silo sends when the view changes: <c>&gt;2</c>, <c>cubby.view</c>, then the view.</summary>
    public static byte[] ViewPush(byte[] view) => [.. ">2\r\n$10\r\ncubby.view\r\n"u8, .. view];

    public static byte[] BulkString(string value) => Encoding.ASCII.GetBytes($"${value.Length}\r\n{value}\r\n");

    /// <summary>Sends raw bytes to every open client connection.</summary>
    public async Task SendToAllAsync(byte[] bytes)
    {
        foreach (var socket in _open.Keys)
        {
            await socket.SendAsync(bytes, SocketFlags.None);
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync();
        _listener.Stop();
        foreach (var socket in _open.Keys)
        {
            socket.Dispose();
        }

        await _accepting;
        _stop.Dispose();
    }

    private async Task AcceptAsync()
    {
        var connections = new List<Task>();
        try
        {
            while (true)
            {
                var socket = await _listener.AcceptSocketAsync(_stop.Token);
                _open[socket] = 0;
                connections.Add(ServeAsync(socket));
            }
        }
        catch (Exception exception) when (exception is OperationCanceledException or SocketException or ObjectDisposedException)
        {
            // Stopped.
        }

        await Task.WhenAll(connections);
    }

    private async Task ServeAsync(Socket socket)
    {
        try
        {
            using var stream = new NetworkStream(socket, ownsSocket: true);
            while (await ReadCommandAsync(stream) is { } command)
            {
                Commands.Enqueue(string.Join(' ', command));
                var reply = command[0].ToUpperInvariant() switch
                {
                    "HELLO" => "%1\r\n$6\r\nserver\r\n$8\r\nstand-in\r\n"u8.ToArray(),
                    "CUBBY.VIEW" => ViewReply ?? View(1, ("stand-in", Port)),
                    _ => await OnCommand(command),
                };
                if (ReferenceEquals(reply, DropConnection))
                {
                    return;
                }

                await stream.WriteAsync(reply, _stop.Token);
            }
        }
        catch (Exception exception) when (exception is OperationCanceledException or IOException or SocketException or ObjectDisposedException)
        {
            // The client or the test closed the connection.
        }
        finally
        {
            _open.TryRemove(socket, out _);
            socket.Dispose();
        }
    }

    /// <summary>One command (an array of bulk strings), or null at the end of the stream.</summary>
    private async Task<string[]?> ReadCommandAsync(NetworkStream stream)
    {
        var header = await ReadLineAsync(stream);
        if (header is null)
        {
            return null;
        }

        var arguments = new string[int.Parse(header.AsSpan(1), CultureInfo.InvariantCulture)];
        for (var i = 0; i < arguments.Length; i++)
        {
            var length = int.Parse((await ReadLineAsync(stream))!.AsSpan(1), CultureInfo.InvariantCulture);
            var bytes = new byte[length + 2];
            await stream.ReadExactlyAsync(bytes, _stop.Token);
            arguments[i] = Encoding.UTF8.GetString(bytes, 0, length);
        }

        return arguments;
    }

    private async Task<string?> ReadLineAsync(NetworkStream stream)
    {
        var line = new StringBuilder();
        var one = new byte[1];
        while (true)
        {
            if (await stream.ReadAsync(one, _stop.Token) == 0)
            {
                return null;
            }

            if (one[0] == '\n')
            {
                return line.ToString().TrimEnd('\r');
            }

            line.Append((char)one[0]);
        }
    }
}
