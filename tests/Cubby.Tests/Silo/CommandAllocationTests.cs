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
/// Commands run on shards this silo holds allocate nothing in steady state. GET and SET, the hot paths, exactly nothing
/// over many runs; every command on keys, each example of
/// <see cref="CommandExamples"/> (the command table's own list) with its setup, repeated on the same keys. Two kinds
/// may allocate, and only they: an error reply (its text names the command or the limit; WRONGTYPE is thrown), and the
/// commands that copy an entry from one key to another (RENAME, RENAMENX, COPY, LCS), which read it into a
/// <c>TwoKeyWork</c> so that the same work runs here and on two silos' grains.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
public sealed class CommandAllocationTests
{
    private const int Warmup = 50;
    private const int Measured = 200;
    private const int MaxWindows = 10;

    private static readonly HashSet<string> EntryCopyingCommands = ["rename", "renamenx", "copy", "lcs"];

    [Theory]
    [InlineData(EntryStoreKind.Native)]
    [InlineData(EntryStoreKind.Managed)]
    public void Get_and_set_of_existing_keys_allocate_nothing(EntryStoreKind store)
    {
        using var silo = new LocalSilo(store);
        using var set = Parse("SET {a} " + new string('v', 1024));
        using var get = Parse("GET {a}");
        using var cubbyGet = Parse("CUBBY.GET {a}");
        RespRequest[] requests = [set, get, cubbyGet];
        for (var i = 0; i < 100; i++)
        {
            Run(silo, requests);
        }

        Assert.Equal(0, AllocatedPerRun(silo, requests, runs: 1000));
    }

    [Theory]
    [InlineData(EntryStoreKind.Native)]
    [InlineData(EntryStoreKind.Managed)]
    public void Every_command_example_allocates_nothing_on_local_shards(EntryStoreKind store)
    {
        using var silo = new LocalSilo(store);
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
                        isError = Run(silo, requests);
                    }

                    if (isError || EntryCopyingCommands.Contains(command))
                    {
                        continue;
                    }

                    measured++;
                    if (AllocatedPerRun(silo, requests) is > 0 and var perRun)
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
    /// Bytes allocated per run over <paramref name="runs"/> runs: none once a window with no collection in it counts
    /// none, else the least over <see cref="MaxWindows"/> windows. A collection inside a window can skew this thread's
    /// count (<c>GC.GetAllocatedBytesForCurrentThread</c> is exact only between collections), and one just before it
    /// can have trimmed <c>ArrayPool.Shared</c> so that a rent in the window refills it. An allocation of the command's
    /// own shows in every window.
    /// </summary>
    private static double AllocatedPerRun(LocalSilo silo, RespRequest[] requests, int runs = Measured)
    {
        var least = double.MaxValue;
        for (var window = 0; window < MaxWindows; window++)
        {
            var collections = GC.CollectionCount(0);
            var before = GC.GetAllocatedBytesForCurrentThread();
            for (var i = 0; i < runs; i++)
            {
                Run(silo, requests);
            }

            var perRun = (GC.GetAllocatedBytesForCurrentThread() - before) / (double)runs;
            if (perRun == 0 && GC.CollectionCount(0) == collections)
            {
                return 0;
            }

            least = Math.Min(least, perRun);
        }

        return least;
    }

    /// <summary>Runs the setup, then the command; true when the command's reply is an error.</summary>
    private static bool Run(LocalSilo silo, RespRequest[] requests)
    {
        foreach (var request in requests.AsSpan(0, requests.Length - 1))
        {
            CommandDispatcher.Execute(silo.Session, request);
        }

        Drain(silo.Pipe);
        CommandDispatcher.Execute(silo.Session, requests[^1]);
        return Drain(silo.Pipe) == (byte)'-';
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

    /// <summary>
    /// A silo without sockets holding every shard, and one client session on it writing into a pipe over the silo's
    /// own block pool, as its connections have (<c>MemoryPool.Shared</c> rents from <c>ArrayPool.Shared</c>).
    /// </summary>
    private sealed class LocalSilo : IDisposable
    {
        private readonly SiloRuntime _silo;
        private readonly LargeBlockMemoryPool _blocks = new();

        public LocalSilo(EntryStoreKind store)
        {
            _silo = SiloRuntime.WithEveryShardHere(new SiloOptions { MaxMemoryBytes = 64L << 20, Store = store }, new FakeTimeProvider());
            Pipe = new Pipe(new PipeOptions(pool: _blocks, pauseWriterThreshold: 0));
            Session = new ClientSession(_silo, Pipe.Writer, "test");
        }

        public Pipe Pipe { get; }

        public ClientSession Session { get; }

        public void Dispose()
        {
            _silo.Catalog.Dispose();
            _blocks.Dispose();
        }
    }
}
