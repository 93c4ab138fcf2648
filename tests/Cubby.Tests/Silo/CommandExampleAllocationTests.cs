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
public sealed class CommandExampleAllocationTests
{
    private const int Warmup = 50;
    private const int Measured = 200;
    private const int MaxWindows = 10;

    private static readonly HashSet<string> EntryCopyingCommands = ["rename", "renamenx", "copy", "lcs"];

    [Theory]
    [InlineData(EntryStoreKind.Native)]
    [InlineData(EntryStoreKind.Managed)]
    public void Every_command_example_allocates_nothing_on_local_shards(EntryStoreKind store)
    {
        var silo = SiloRuntime.WithEveryShardHere(new SiloOptions { MaxMemoryBytes = 64L << 20, Store = store }, new FakeTimeProvider());
        using var catalog = silo.Catalog;
        using var blocks = new LargeBlockMemoryPool();
        var pipe = new Pipe(new PipeOptions(pool: blocks, pauseWriterThreshold: 0));
        var session = new ClientSession(silo, pipe.Writer, "test");
        var allocating = new List<string>();
        var measured = 0;

        // CUBBY.OWNER names the RESP endpoint of a listening silo, which this one without sockets has none of.
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

                    if (isError || EntryCopyingCommands.Contains(command))
                    {
                        continue;
                    }

                    measured++;
                    if (AllocatedPerRun(session, pipe, requests) is > 0 and var perRun)
                    {
                        allocating.Add($"{example}: {perRun:0.#} B");
                    }
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

    /// <summary>
    /// Bytes allocated per run over <see cref="Measured"/> runs, in a window without a full collection. After one the
    /// runtime trims <c>ArrayPool.Shared</c>, and the next rent allocates once to refill it: the rest of the suite,
    /// running meanwhile, causes those, and they say nothing about the command. An allocation of the command's own
    /// shows in every window.
    /// </summary>
    private static double AllocatedPerRun(ClientSession session, Pipe pipe, RespRequest[] requests)
    {
        var least = double.MaxValue;
        for (var window = 0; window < MaxWindows; window++)
        {
            var collections = GC.CollectionCount(2);
            var before = GC.GetAllocatedBytesForCurrentThread();
            for (var i = 0; i < Measured; i++)
            {
                Run(session, pipe, requests);
            }

            var perRun = (GC.GetAllocatedBytesForCurrentThread() - before) / (double)Measured;
            if (GC.CollectionCount(2) == collections)
            {
                return perRun;
            }

            least = Math.Min(least, perRun);
        }

        return least;
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
