using System.Collections.Concurrent;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Cubby.Tests.Client;

/// <summary>
/// A test stand-in for a silo, not a silo: a few lines of RESP over a socket that answer HELLO and let the test script
/// every other command (answer, hold, or drop the connection) and send RESP3 pushes, so the client's routing between
/// endpoints, its retries and its side of lost connections can be tested on their own.
/// </summary>
internal sealed class StandInSilo : IAsyncDisposable
{
    /// <summary>What <see cref="OnCommand"/> returns to close the connection instead of replying.</summary>
    public static readonly byte[] DropConnection = [];

    private readonly TcpListener _listener;
    private readonly CancellationTokenSource _stop = new();
    private readonly ConcurrentDictionary<Socket, byte> _open = new();
    private readonly Task _accepting;

    private StandInSilo(int port)
    {
        _listener = new TcpListener(IPAddress.Loopback, port);
        _listener.Start();
        _accepting = AcceptAsync();
    }

    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

    /// <summary>Every command received (arguments joined by spaces), in order.</summary>
    public ConcurrentQueue<string> Commands { get; } = new();

    /// <summary>Client connections not closed yet.</summary>
    public int OpenConnections => _open.Count;

    /// <summary>The endpoint as the client's options take it.</summary>
    public string Endpoint => $"127.0.0.1:{Port}";

    /// <summary>Answers a command other than HELLO: the raw reply, or <see cref="DropConnection"/>.</summary>
    public Func<string[], Task<byte[]>> OnCommand { get; set; } = _ => Task.FromResult("-ERR not scripted\r\n"u8.ToArray());

    /// <summary>Answers HELLO instead of the stand-in's own reply, when set: to make a handshake slow, or refuse it.</summary>
    public Func<string[], Task<byte[]>>? OnHello { get; set; }

    /// <summary>Listens on a free loopback port, or on <paramref name="port"/> (to come back where one stopped).</summary>
    public static StandInSilo Start(int port = 0) => new(port);

    /// <summary>How many of the commands received so far are exactly <paramref name="command"/> (arguments joined by spaces).</summary>
    public int Received(string command) => Commands.Count(c => c == command);

    public static byte[] BulkString(string value) => Encoding.ASCII.GetBytes($"${value.Length}\r\n{value}\r\n");

    /// <summary>A CUBBY.GET reply: the value, no flags, no expiry.</summary>
    public static byte[] Entry(string value) => [.. "*3\r\n"u8, .. BulkString(value), .. ":0\r\n:-1\r\n"u8];

    /// <summary>A stand-in that answers every CUBBY.GET with <paramref name="name"/> as the value, and every other command with 1.</summary>
    public static StandInSilo Answering(string name, int port = 0)
    {
        var standIn = Start(port);
        standIn.OnCommand = command => Task.FromResult(command[0] == "CUBBY.GET" ? Entry(name) : ":1\r\n"u8.ToArray());
        return standIn;
    }

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
        catch (Exception exception) when (exception is OperationCanceledException or SocketException or ObjectDisposedException or InvalidOperationException)
        {
            // Stopped (an accept that starts after the listener stopped throws InvalidOperationException).
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
                    "HELLO" => OnHello is { } onHello ? await onHello(command) : "%1\r\n$6\r\nserver\r\n$8\r\nstand-in\r\n"u8.ToArray(),
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
