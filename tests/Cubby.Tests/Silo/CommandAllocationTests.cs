using System.IO.Pipelines;
using Cubby.Grains.Hosting;
using Cubby.Resp;
using Cubby.Silo.Commands;
using Cubby.Silo.Hosting;
using Cubby.Silo.Protocol;
using Cubby.Tests.Infrastructure;
using Cubby.Tests.Orleans;

namespace Cubby.Tests.Silo;

/// <summary>
/// Every command on keys, run on shards this silo holds, allocates nothing in steady state: each example of
/// <see cref="CommandExamples"/> (the command table's own list) with its setup, repeated on the same keys. Two kinds
/// may allocate, and only they: an error reply (its text names the command or the limit; WRONGTYPE is thrown), and the
/// commands that copy an entry from one key to another (RENAME, RENAMENX, COPY, LCS), which read it into a
/// <c>TwoKeyWork</c> so that the same work runs here and on two silos' grains.
/// </summary>
public sealed class CommandAllocationTests
{
    private const int Warmup = 50;
    private const int Measured = 200;

    private static readonly HashSet<string> EntryCopyingCommands = ["rename", "renamenx", "copy", "lcs"];

    [Theory]
    [InlineData(EntryStoreKind.Native)]
    [InlineData(EntryStoreKind.Managed)]
    public void Every_command_example_allocates_nothing_on_local_shards(EntryStoreKind store)
    {
        var silo = SiloRuntime.WithEveryShardHere(new SiloOptions { MaxMemoryBytes = 64L << 20, Store = store }, new FakeTimeProvider());
        using var catalog = silo.Catalog;
        // The silo's own block pool, as its connections have: MemoryPool<byte>.Shared rents from ArrayPool<byte>.Shared,
        // whose arrays the GC may trim while the rest of the suite runs, and a 4 KiB array rented anew counted here.
        using var blocks = new LargeBlockMemoryPool();
        var pipe = new Pipe(new PipeOptions(pool: blocks, pauseWriterThreshold: 0));
        var session = new ClientSession(silo, pipe.Writer, "test");
        var allocating = new List<string>();
        // CUBBY.OWNER names the RESP endpoint of a listening silo, which this one without sockets has none of.
        var measured = 0;
        foreach (var (command, examples) in CommandExamples.ByCommand.Where(command => command.Key != "cubby.owner"))
        {
            foreach (var example in examples)
            {
                var requests = new[] { "DEL {a} {b} {c}" }.Concat(example.Setup).Append(example.Command).Select(Parse).ToArray();
                try
                {
                    var isError = false;
                    for (var i = 0; i < Warmup; i++)
                    {
                        isError = Run(session, pipe, requests);
                    }

                    // An allocation per command shows in every window; a one-off one (a pool refilling after the GC
                    // trimmed it while the rest of the suite ran) does not show in the next.
                    var perRun = AllocatedPerRun(session, pipe, requests);
                    if (perRun > 0)
                    {
                        perRun = AllocatedPerRun(session, pipe, requests);
                    }

                    if (perRun > 0 && !isError && !EntryCopyingCommands.Contains(command))
                    {
                        allocating.Add($"{example}: {perRun:0.#} B");
                    }

                    measured += isError || EntryCopyingCommands.Contains(command) ? 0 : 1;
                }
                finally
                {
                    foreach (var request in requests)
                    {
                        request.Dispose();
                    }
                }
            }
        }

        Assert.True(allocating.Count == 0, "Allocating per run:\n" + string.Join('\n', allocating));
        Assert.True(measured > 100, $"Only {measured} examples ran without an error reply.");
    }

    private static double AllocatedPerRun(ClientSession session, Pipe pipe, RespRequest[] requests)
    {
        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < Measured; i++)
        {
            Run(session, pipe, requests);
        }

        return (GC.GetAllocatedBytesForCurrentThread() - before) / (double)Measured;
    }

    /// <summary>Runs the setup, then the command; true when the command's reply is an error.</summary>
    private static bool Run(ClientSession session, Pipe pipe, RespRequest[] requests)
    {
        foreach (var request in requests.AsSpan(0, requests.Length - 1))
        {
            CommandDispatcher.Execute(session, request);
        }

        Drain(pipe);
        CommandDispatcher.Execute(session, requests[^1]);
        return Drain(pipe) == (byte)'-';
    }

    /// <summary>Reads and discards what the commands wrote; returns its first byte.</summary>
    private static byte Drain(Pipe pipe)
    {
        var flush = pipe.Writer.FlushAsync();
        Assert.True(flush.IsCompletedSuccessfully);
        Assert.True(pipe.Reader.TryRead(out var read));
        var first = read.Buffer.FirstSpan[0];
        pipe.Reader.AdvanceTo(read.Buffer.End);
        return first;
    }

    private static RespRequest Parse(string command)
    {
        var arguments = command.Replace("{a}", "{t}a", StringComparison.Ordinal)
            .Replace("{b}", "{t}b", StringComparison.Ordinal)
            .Replace("{c}", "{t}c", StringComparison.Ordinal)
            .Split(' ');
        var request = new RespRequest();
        var bytes = new System.Buffers.ReadOnlySequence<byte>(RespTestClient.Encode(arguments));
        Assert.Equal(RespParseStatus.Complete, RespRequestParser.TryParse(bytes, request, RespLimits.Default, out _, out _));
        return request;
    }
}
