using System.Buffers;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Cubby.StoreScale;

internal sealed record ScaleResult(
    string Server,
    int Entries,
    int ValueBytes,
    double LoadPerSecond,
    double RssBytesPerEntry,
    double UsedMemoryBytesPerEntry,
    string? GcPausesRecorded,
    string? GcPauseP99Ms,
    string? GcPauseMaxMs,
    string? Gen2Collections,
    string MixedLoadCsv);

internal static class Repository
{
    public static string Root()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Cubby.slnx")))
            {
                return dir.FullName;
            }
        }

        return Directory.GetCurrentDirectory();
    }
}

internal static class Ports
{
    public static int Free()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}

internal static class Server
{
    public static Process Start(string file, string arguments) =>
        Process.Start(new ProcessStartInfo(file, arguments) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false })
        ?? throw new InvalidOperationException($"Could not start {file}.");

    public static string Run(string file, string arguments)
    {
        using var process = Start(file, arguments);
        var output = process.StandardOutput.ReadToEnd();
        if (!process.WaitForExit(TimeSpan.FromMinutes(5)))
        {
            process.Kill(true);
        }

        return output;
    }

    public static async Task WaitForPortAsync(int port)
    {
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (true)
        {
            try
            {
                using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
                await socket.ConnectAsync(IPAddress.Loopback, port);
                return;
            }
            catch (SocketException) when (DateTime.UtcNow < deadline)
            {
                await Task.Delay(100);
            }
        }
    }

    public static long RssBytes(int pid)
    {
        foreach (var line in File.ReadLines($"/proc/{pid}/status"))
        {
            if (line.StartsWith("VmRSS:", StringComparison.Ordinal))
            {
                return long.Parse(line.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1], CultureInfo.InvariantCulture) * 1024;
            }
        }

        return 0;
    }

    public static void Stop(Process process)
    {
        process.Kill(true);
        process.WaitForExit(10_000);
    }
}

/// <summary>A minimal pipelined RESP client for loading data and reading INFO.</summary>
internal sealed class Resp : IDisposable
{
    private readonly Socket _socket;
    private readonly byte[] _buffer = new byte[1 << 20];

    private Resp(Socket socket) => _socket = socket;

    public static async Task<Resp> ConnectAsync(int port)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(IPAddress.Loopback, port);
        return new Resp(socket);
    }

    /// <summary>SETs key:0 .. key:N-1 with values of the given size, 1000 commands per write.</summary>
    public async Task LoadAsync(int entries, int valueBytes)
    {
        var value = new string('v', valueBytes);
        const int Batch = 1000;
        var output = new ArrayBufferWriter<byte>(Batch * (valueBytes + 64));
        for (var start = 0; start < entries; start += Batch)
        {
            output.ResetWrittenCount();
            var count = Math.Min(Batch, entries - start);
            for (var i = start; i < start + count; i++)
            {
                var key = $"key:{i}";
                Encoding.ASCII.GetBytes($"*3\r\n$3\r\nSET\r\n${key.Length}\r\n{key}\r\n${value.Length}\r\n{value}\r\n", output);
            }

            await _socket.SendAsync(output.WrittenMemory);
            await ExpectRepliesAsync(count, "+OK\r\n"u8.Length);
        }
    }

    public async Task<string> CallAsync(string command)
    {
        await _socket.SendAsync(Encoding.ASCII.GetBytes($"*1\r\n${command.Length}\r\n{command}\r\n"));
        var received = 0;
        while (true)
        {
            received += await _socket.ReceiveAsync(_buffer.AsMemory(received));
            var text = Encoding.UTF8.GetString(_buffer, 0, received);
            var newline = text.IndexOf("\r\n", StringComparison.Ordinal);
            if (newline > 0 && text[0] is '$' or '=' && int.TryParse(text.AsSpan(1, newline - 1), CultureInfo.InvariantCulture, out var length)
                && received >= newline + 2 + length + 2)
            {
                return text.Substring(newline + 2, length);
            }
        }
    }

    public void Dispose() => _socket.Dispose();

    private async Task ExpectRepliesAsync(int count, int replyLength)
    {
        var expected = count * replyLength;
        var received = 0;
        while (received < expected)
        {
            received += await _socket.ReceiveAsync(_buffer.AsMemory(0, Math.Min(_buffer.Length, expected - received)));
        }
    }
}

internal static class Info
{
    public static Dictionary<string, string> Parse(string info)
    {
        var fields = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var line in info.Split("\r\n"))
        {
            var colon = line.IndexOf(':', StringComparison.Ordinal);
            if (colon > 0 && !line.StartsWith('#'))
            {
                fields[line[..colon]] = line[(colon + 1)..];
            }
        }

        return fields;
    }
}

internal static class Report
{
    public static string Markdown(IReadOnlyList<ScaleResult> results)
    {
        var text = new StringBuilder();
        text.AppendLine(CultureInfo.InvariantCulture, $"# Store at scale: {results[0].Entries:N0} entries of {results[0].ValueBytes} B");
        text.AppendLine();
        text.AppendLine("| Server | Load (SET/s, pipelined) | RSS bytes/entry | used_memory bytes/entry | GC pauses | GC pause p99 (ms) | GC pause max (ms) | gen2 GCs | Mixed GET/SET -P 16 (redis-benchmark) |");
        text.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|---|");
        foreach (var r in results)
        {
            var mixed = string.Join("; ", r.MixedLoadCsv.Split('\n').Skip(1).Select(l => string.Join(" ", l.Split(',').Take(2))).Where(l => l.Length > 0));
            text.AppendLine(CultureInfo.InvariantCulture, $"| {r.Server} | {r.LoadPerSecond:N0} | {r.RssBytesPerEntry:N0} | {r.UsedMemoryBytesPerEntry:N0} | {r.GcPausesRecorded ?? "n/a"} | {r.GcPauseP99Ms ?? "n/a"} | {r.GcPauseMaxMs ?? "n/a"} | {r.Gen2Collections ?? "n/a"} | {mixed} |");
        }

        return text.ToString();
    }
}
