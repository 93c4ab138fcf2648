using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;

namespace Cubby.Load.Faults;

/// <summary>
/// Holds every byte between the silos of a <see cref="FaultNetwork"/> for a fixed time each way, as a network between
/// machines would: the kernel here has no <c>netem</c> (nor <c>fq</c>, which could pace packets stamped by a program), so
/// a silo's connections to a peer's silo port are redirected (iptables <c>DNAT</c> in its namespace) to a listener of
/// this process, which opens its own connection to the peer and passes the bytes on, each chunk once it is
/// <see cref="Delay"/> old. A thread per direction waits with <c>clock_nanosleep</c>, as .NET's timers cannot wait less
/// than a millisecond. Orleans names the silo at the other end in its handshake, so a connection that comes from this
/// process's address is still that silo's.
/// </summary>
internal sealed partial class DelayRelay : IAsyncDisposable
{
    private readonly FaultNetwork _network;
    private readonly int _siloPort;
    private readonly List<Socket> _listeners = [];
    private readonly ConcurrentBag<Socket> _sockets = [];
    private readonly CancellationTokenSource _stop = new();
    private readonly List<Task> _accepting = [];
    private readonly List<int> _redirected = [];
    private long _chunks;

    private DelayRelay(FaultNetwork network, int siloPort, TimeSpan delay) => (_network, _siloPort, Delay) = (network, siloPort, delay);

    /// <summary>How long each chunk is held, each way.</summary>
    public TimeSpan Delay { get; }

    /// <summary>Chunks passed on so far, both ways.</summary>
    public long Chunks => Interlocked.Read(ref _chunks);

    /// <summary>
    /// Starts a listener for each of <paramref name="silos"/> nodes and redirects every silo's connections to the
    /// others' <paramref name="siloPort"/> through them.
    /// </summary>
    public static async Task<DelayRelay> StartAsync(FaultNetwork network, int silos, int siloPort, TimeSpan delay)
    {
        if (Stopwatch.Frequency != 1_000_000_000)
        {
            throw new HarnessException("The relay waits on CLOCK_MONOTONIC in nanoseconds, which the Stopwatch does not count here.");
        }

        var relay = new DelayRelay(network, siloPort, delay);
        try
        {
            for (var target = 0; target < silos; target++)
            {
                var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
                listener.Bind(new IPEndPoint(IPAddress.Parse(network.ClientAddress), 0));
                listener.Listen(64);
                relay._listeners.Add(listener);
                relay._accepting.Add(relay.AcceptAsync(listener, target));
            }

            for (var node = 0; node < silos; node++)
            {
                for (var target = 0; target < silos; target++)
                {
                    if (target != node)
                    {
                        var port = ((IPEndPoint)relay._listeners[target].LocalEndPoint!).Port;
                        await network.RedirectAsync(node, network.AddressOf(target), siloPort, network.ClientAddress, port).ConfigureAwait(false);
                    }
                }

                relay._redirected.Add(node);
            }

            return relay;
        }
        catch
        {
            await relay.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    public async ValueTask DisposeAsync()
    {
        foreach (var node in _redirected)
        {
            await _network.EndRedirectsAsync(node).ConfigureAwait(false);
        }

        await _stop.CancelAsync().ConfigureAwait(false);
        foreach (var socket in _listeners.Concat(_sockets))
        {
            socket.Dispose();
        }

        await Task.WhenAll(_accepting).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        _stop.Dispose();
    }

    private async Task AcceptAsync(Socket listener, int target)
    {
        while (!_stop.IsCancellationRequested)
        {
            Socket inbound;
            try
            {
                inbound = await listener.AcceptAsync(_stop.Token).ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is OperationCanceledException or SocketException or ObjectDisposedException)
            {
                return;
            }

            var outbound = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            inbound.NoDelay = true;
            _sockets.Add(inbound);
            _sockets.Add(outbound);
            try
            {
                await outbound.ConnectAsync(_network.AddressOf(target), _siloPort, _stop.Token).ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is OperationCanceledException or SocketException)
            {
                inbound.Dispose();
                outbound.Dispose();
                continue;
            }

            Pipe(inbound, outbound);
            Pipe(outbound, inbound);
        }
    }

    /// <summary>Passes what <paramref name="from"/> receives to <paramref name="to"/>, each chunk once it is <see cref="Delay"/> old.</summary>
    private void Pipe(Socket from, Socket to)
    {
        var chunks = new BlockingCollection<(long ReceivedAt, byte[] Bytes)>();
        var delay = (long)(Delay.TotalSeconds * Stopwatch.Frequency);
        new Thread(() =>
        {
            try
            {
                var buffer = new byte[64 * 1024];
                while (from.Receive(buffer) is > 0 and var read)
                {
                    chunks.Add((Stopwatch.GetTimestamp(), buffer.AsSpan(0, read).ToArray()));
                }
            }
            catch (Exception exception) when (exception is SocketException or ObjectDisposedException)
            {
            }
            finally
            {
                chunks.CompleteAdding();
            }
        })
        { IsBackground = true, Name = "relay in" }.Start();
        new Thread(() =>
        {
            try
            {
                foreach (var (receivedAt, bytes) in chunks.GetConsumingEnumerable())
                {
                    SleepUntil(receivedAt + delay);
                    to.Send(bytes, SocketFlags.None);
                    Interlocked.Increment(ref _chunks);
                }

                to.Shutdown(SocketShutdown.Send);
            }
            catch (Exception exception) when (exception is SocketException or ObjectDisposedException)
            {
                from.Dispose();
            }
        })
        { IsBackground = true, Name = "relay out" }.Start();
    }

    /// <summary>Sleeps until the <see cref="Stopwatch"/> reads <paramref name="timestamp"/>: on Linux both count nanoseconds of <c>CLOCK_MONOTONIC</c>.</summary>
    private static void SleepUntil(long timestamp)
    {
        if (Stopwatch.GetTimestamp() >= timestamp)
        {
            return;
        }

        var due = new TimeSpec { Seconds = timestamp / 1_000_000_000, Nanoseconds = timestamp % 1_000_000_000 };
        while (ClockNanosleep(ClockMonotonic, TimerAbsoluteTime, in due, IntPtr.Zero) == Interrupted)
        {
        }
    }

    private const int ClockMonotonic = 1;
    private const int TimerAbsoluteTime = 1;
    private const int Interrupted = 4;

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [LibraryImport("libc", EntryPoint = "clock_nanosleep")]
    private static partial int ClockNanosleep(int clock, int flags, in TimeSpec request, IntPtr remaining);
}
