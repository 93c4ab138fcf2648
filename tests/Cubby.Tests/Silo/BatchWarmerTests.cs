using System.Buffers;
using System.IO.Pipelines;
using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Silo.Commands;
using Cubby.Silo.Hosting;
using Cubby.Silo.Protocol;
using Cubby.Tests.Infrastructure;
using Cubby.Tests.Resp;

namespace Cubby.Tests.Silo;

/// <summary>
/// A pipelining connection warms the key lookups of the commands it received before it runs them
/// (<see cref="BatchWarmer"/>, <see cref="LookupPrefetcher"/>). Warming covers a window of complete commands, allocates
/// nothing, never waits for a shard another thread holds, and changes nothing a command then reads.
/// </summary>
public sealed class BatchWarmerTests : IDisposable
{
    private readonly SiloRuntime _silo = SiloRuntime.WithEveryShardHere(new SiloOptions { MaxMemoryBytes = 64L << 20 }, new FakeTimeProvider());
    private readonly BatchWarmer _warmer;

    public BatchWarmerTests() => _warmer = new BatchWarmer(_silo, RespLimits.Default);

    [Fact]
    public void A_warm_covers_a_window_of_the_complete_commands_received()
    {
        Assert.Equal(LookupPrefetcher.Window, _warmer.Warm(Received(Gets(0, 20))));
        Assert.Equal(3, _warmer.Warm(Received(Gets(0, 3))));

        // A command still arriving ends the window; nothing complete still counts one, so the caller moves on.
        var partial = Gets(0, 4);
        Assert.Equal(3, _warmer.Warm(Received(partial[..^5])));
        Assert.Equal(1, _warmer.Warm(Received(partial[..5])));

        // Commands without keys, or with fewer arguments than their key's position, are covered and skipped.
        Assert.Equal(3, _warmer.Warm(Received([.. RespTestClient.Encode("PING"), .. RespTestClient.Encode("GET"), .. RespTestClient.Encode("GET", "k")])));
    }

    [Fact]
    public void A_window_ends_with_the_first_block_received()
    {
        var bytes = Gets(0, 6);
        var oneCommand = RespTestClient.Encode("GET", "key:0").Length;
        var first = new TestSegment(bytes.AsMemory(0, (2 * oneCommand) + 3), null);
        var last = new TestSegment(bytes.AsMemory((2 * oneCommand) + 3), first);
        var received = new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);

        Assert.Equal(2, _warmer.Warm(received));

        // The command split between the blocks is covered by none, and the caller moves past it; the rest is warmed.
        Assert.Equal(1, _warmer.Warm(received.Slice(2 * oneCommand)));
        Assert.Equal(3, _warmer.Warm(received.Slice(3 * oneCommand)));
    }

    [Fact]
    public void Warming_allocates_nothing()
    {
        Run("SET", 0, 64);
        var received = Received(Gets(0, 64));
        for (var i = 0; i < 100; i++)
        {
            _warmer.Warm(received);
        }

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < 1000; i++)
        {
            _warmer.Warm(received);
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
    }

    [Fact]
    public async Task A_shard_held_by_another_thread_or_disposed_is_passed_over()
    {
        var heldKey = "key:held"u8.ToArray();
        var goneKey = "key:gone"u8.ToArray();
        var held = _silo.Catalog.GetOrCreate(heldKey);
        var gone = _silo.Catalog.GetOrCreate(goneKey);
        Assert.NotSame(held, gone);
        gone.Dispose();

        using var taken = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        var holder = Task.Factory.StartNew(
            () =>
            {
                using (held.TakeTurn())
                {
                    taken.Set();
                    release.Wait();
                }
            },
            TaskCreationOptions.LongRunning);
        taken.Wait();
        try
        {
            // Waiting for the held turn here would never end: the holder waits for this test.
            var warm = Task.Run(() => _warmer.Warm(Received([.. RespTestClient.Encode("GET", "key:held"), .. RespTestClient.Encode("GET", "key:gone")])));
            Assert.Equal(2, await warm.WaitAsync(TimeSpan.FromSeconds(30)));
        }
        finally
        {
            release.Set();
            await holder;
        }
    }

    [Fact]
    public async Task Commands_read_what_they_read_without_warming()
    {
        Run("SET", 0, 40);
        var received = Gets(0, 40);
        _warmer.Warm(Received(received));

        var pipe = new Pipe();
        var session = new ClientSession(_silo, pipe.Writer, "test");
        using var request = new RespRequest();
        var rest = Received(received);
        for (var i = 0; i < 40; i++)
        {
            Assert.Equal(RespParseStatus.Complete, RespRequestParser.TryParse(rest, request, RespLimits.Default, out var next, out _));
            CommandDispatcher.Execute(session, request);
            rest = rest.Slice(next);
        }

        await pipe.Writer.FlushAsync();
        Assert.True(pipe.Reader.TryRead(out var read));
        var expected = string.Concat(Enumerable.Range(0, 40).Select(i => $"$7\r\nvalue{i:D2}\r\n"));
        Assert.Equal(expected, System.Text.Encoding.ASCII.GetString(read.Buffer.ToArray()));
    }

    public void Dispose()
    {
        _warmer.Dispose();
        _silo.Catalog.Dispose();
    }

    private static ReadOnlySequence<byte> Received(byte[] bytes) => new(bytes);

    private static byte[] Gets(int first, int count) =>
        [.. Enumerable.Range(first, count).SelectMany(i => RespTestClient.Encode("GET", $"key:{i}"))];

    /// <summary>Runs <paramref name="command"/> on keys <c>key:first</c> onwards, with values <c>valueNN</c> for SET.</summary>
    private void Run(string command, int first, int count)
    {
        var session = new ClientSession(_silo, new Pipe().Writer, "setup");
        using var request = new RespRequest();
        for (var i = first; i < first + count; i++)
        {
            var bytes = new ReadOnlySequence<byte>(RespTestClient.Encode(command, $"key:{i}", $"value{i:D2}"));
            Assert.Equal(RespParseStatus.Complete, RespRequestParser.TryParse(bytes, request, RespLimits.Default, out _, out _));
            CommandDispatcher.Execute(session, request);
        }
    }
}
