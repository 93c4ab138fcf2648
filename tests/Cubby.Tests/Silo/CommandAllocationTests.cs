using System.IO.Pipelines;
using Cubby.Grains.Hosting;
using Cubby.Resp;
using Cubby.Silo.Commands;
using Cubby.Silo.Hosting;
using Cubby.Silo.Protocol;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>The GET and SET paths, from parsed request to written reply, allocate nothing in steady state.</summary>
public sealed class CommandAllocationTests
{
    [Theory]
    [InlineData(EntryStoreKind.Native)]
    [InlineData(EntryStoreKind.Managed)]
    public void Get_and_set_of_existing_keys_allocate_nothing(EntryStoreKind store)
    {
        var silo = SiloRuntime.WithEveryShardHere(new SiloOptions { MaxMemoryBytes = 64L << 20, Store = store }, new FakeTimeProvider());
        using var catalog = silo.Catalog;
        // The silo's own block pool, as its connections have: MemoryPool<byte>.Shared rents from ArrayPool<byte>.Shared,
        // whose arrays the GC may trim while the rest of the suite runs, and a 4 KiB array rented anew counted here.
        using var blocks = new LargeBlockMemoryPool();
        var pipe = new Pipe(new PipeOptions(pool: blocks, pauseWriterThreshold: 0));
        var session = new ClientSession(silo, pipe.Writer, "test");
        using var set = Parse("SET", "key:1", new string('v', 1024));
        using var get = Parse("GET", "key:1");
        using var cubbyGet = Parse("CUBBY.GET", "key:1");

        for (var i = 0; i < 100; i++)
        {
            Run(session, pipe, set, get, cubbyGet);
        }

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < 1000; i++)
        {
            Run(session, pipe, set, get, cubbyGet);
        }

        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.Equal(0, allocated);
    }

    private static void Run(ClientSession session, Pipe pipe, RespRequest set, RespRequest get, RespRequest cubbyGet)
    {
        CommandDispatcher.Execute(session, set);
        CommandDispatcher.Execute(session, get);
        CommandDispatcher.Execute(session, cubbyGet);
        var flush = pipe.Writer.FlushAsync();
        Assert.True(flush.IsCompletedSuccessfully);
        Assert.True(pipe.Reader.TryRead(out var read));
        pipe.Reader.AdvanceTo(read.Buffer.End);
    }

    private static RespRequest Parse(params string[] arguments)
    {
        var request = new RespRequest();
        var bytes = new System.Buffers.ReadOnlySequence<byte>(RespTestClient.Encode(arguments));
        Assert.Equal(RespParseStatus.Complete, RespRequestParser.TryParse(bytes, request, RespLimits.Default, out _, out _));
        return request;
    }
}
