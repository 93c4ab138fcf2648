using Cubby.Grains.Hosting;
using Cubby.Grains.Storage;
using Cubby.Sharding;

namespace Cubby.Tests.Grains;

public sealed class MigrationRoundTripTests
{
    private const int ChunkBytes = 16 * 1024;
    private const int Entries = 600;
    private static readonly int[] ValueSizes = [0, 1, 7, 100, 1000, 20_000, 70_000, 3];

    public static TheoryData<StoreKind, StoreKind> StorePairs => new()
    {
        { StoreKind.Native, StoreKind.Native },
        { StoreKind.Managed, StoreKind.Managed },
        { StoreKind.Native, StoreKind.Managed },
        { StoreKind.Managed, StoreKind.Native },
    };

    [Theory]
    [MemberData(nameof(StorePairs))]
    public void Every_live_entry_arrives_equal_with_the_same_remaining_time_and_expired_ones_stay_behind(StoreKind source, StoreKind target)
    {
        using var pair = new MigrationPair(source, target);
        var start = pair.Now;
        for (var i = 0; i < Entries; i++)
        {
            Assert.Equal(Cubby.Grains.SetStatus.Created, MigrationPair.Set(pair.Source, MigrationPair.KeyOf(i), ValueOf(i), ExpiryOf(i, start), FlagsOf(i)));
        }

        pair.Advance(1000);
        var sourceGrain = pair.Source.Find(pair.MovingSlot)!;
        Assert.Equal(Entries, sourceGrain.Count);
        var expected = new Dictionary<string, (byte[] Value, EntryMetadata Metadata)>();
        for (var i = 0; i < Entries; i++)
        {
            if (IsLiveAfterOneSecond(i))
            {
                expected[MigrationPair.KeyOf(i)] = MigrationPair.Peek(pair.Source, MigrationPair.KeyOf(i))!.Value;
            }
        }

        var (chunks, installed) = pair.Move(pair.MovingSlot, ChunkBytes);

        var moved = chunks.SelectMany(MigrationPair.KeysIn).ToList();
        Assert.Equal(expected.Count, installed);
        Assert.Equal(expected.Keys.Order(), moved.Order());
        Assert.Equal(expected.Count, pair.Target.Find(pair.MovingSlot)!.Count);
        var now = pair.Now;
        foreach (var (key, (value, metadata)) in expected)
        {
            var arrived = MigrationPair.Peek(pair.Target, key);
            Assert.NotNull(arrived);
            Assert.Equal(value, arrived.Value.Value);
            Assert.Equal(metadata.Flags, arrived.Value.Metadata.Flags);
            Assert.Equal(metadata.ExpiresAt, arrived.Value.Metadata.ExpiresAt);
            Assert.Equal(metadata.SlidingWindow, arrived.Value.Metadata.SlidingWindow);
            Assert.Equal(metadata.AbsoluteDeadline, arrived.Value.Metadata.AbsoluteDeadline);
            Assert.Equal(metadata.TimeToLive(now), arrived.Value.Metadata.TimeToLive(now));
        }

        for (var i = 0; i < Entries; i++)
        {
            if (!IsLiveAfterOneSecond(i))
            {
                Assert.Null(MigrationPair.Peek(pair.Target, MigrationPair.KeyOf(i)));
            }
        }
    }

    [Theory]
    [MemberData(nameof(StorePairs))]
    public void A_hash_arrives_as_a_hash_with_its_fields_and_expiry(StoreKind source, StoreKind target)
    {
        using var pair = new MigrationPair(source, target);
        var key = MigrationPair.KeyOf(7);
        var grain = pair.Turns.Hold(pair.Source.GetOrCreate(MigrationPair.Bytes(key)));
        var add = new TwoFields();
        Assert.Equal(Cubby.Grains.UpdateStatus.Ok, grain.EditHash(MigrationPair.Bytes(key), new System.Buffers.ArrayBufferWriter<byte>(), ref add));
        Assert.True(grain.Expire(MigrationPair.Bytes(key), pair.Now + 60_000, Cubby.Grains.ExpireCondition.Always));
        var (value, metadata) = MigrationPair.Peek(pair.Source, key)!.Value;

        pair.Move(pair.MovingSlot, ChunkBytes);

        var arrived = MigrationPair.Peek(pair.Target, key);
        Assert.NotNull(arrived);
        Assert.Equal(EntryKind.Hash, arrived.Value.Metadata.Kind);
        Assert.Equal(value, arrived.Value.Value);
        Assert.Equal(metadata.ExpiresAt, arrived.Value.Metadata.ExpiresAt);
    }

    [Theory]
    [MemberData(nameof(StorePairs))]
    public void Chunks_stay_within_max_bytes_unless_one_entry_alone_is_larger(StoreKind source, StoreKind target)
    {
        using var pair = new MigrationPair(source, target);
        for (var i = 0; i < Entries; i++)
        {
            MigrationPair.Set(pair.Source, MigrationPair.KeyOf(i), ValueOf(i), ExpiryOf(i, pair.Now), FlagsOf(i));
        }

        var chunks = MigrationPair.WriteAllChunks(pair.Source.Find(pair.MovingSlot)!, ChunkBytes);

        Assert.Equal(Entries, chunks.Sum(chunk => MigrationPair.KeysIn(chunk).Count));
        var oversized = chunks.Where(chunk => chunk.Length > ChunkBytes).ToList();
        Assert.NotEmpty(oversized);
        Assert.All(oversized, chunk => Assert.Single(MigrationPair.KeysIn(chunk)));
        Assert.Contains(chunks, chunk => MigrationPair.KeysIn(chunk).Count > 3);
        Assert.All(chunks, chunk => Assert.NotEmpty(MigrationPair.KeysIn(chunk)));
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void A_sliding_entry_keeps_sliding_on_the_new_grain_and_never_past_its_deadline(StoreKind kind)
    {
        using var pair = new MigrationPair(kind, kind);
        var start = pair.Now;
        var key = MigrationPair.KeyOf(1);
        MigrationPair.Set(pair.Source, key, MigrationPair.Bytes("session"), new ExpirySpec(start + 25_000, SlidingWindow: 10_000), flags: 1);
        pair.Advance(1000);

        pair.Move(pair.MovingSlot, ChunkBytes);

        Assert.Equal(9000, Ttl(pair, key));
        pair.Advance(8000);
        Assert.True(Slide(pair, key));
        Assert.Equal(10_000, Ttl(pair, key));
        pair.Advance(9000);
        Assert.True(Slide(pair, key));
        Assert.Equal(7000, Ttl(pair, key));
        pair.Advance(6999);
        Assert.True(Slide(pair, key));
        Assert.Equal(1, Ttl(pair, key));
        pair.Advance(1);
        Assert.False(Slide(pair, key));
        Assert.Equal(start + 25_000, pair.Now);
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void An_unread_sliding_entry_expires_on_the_new_grain_when_its_window_runs_out(StoreKind kind)
    {
        using var pair = new MigrationPair(kind, kind);
        var key = MigrationPair.KeyOf(2);
        MigrationPair.Set(pair.Source, key, MigrationPair.Bytes("v"), new ExpirySpec(0, SlidingWindow: 5000));
        pair.Advance(4000);

        pair.Move(pair.MovingSlot, ChunkBytes);

        pair.Advance(999);
        Assert.Equal(1, Ttl(pair, key));
        pair.Advance(1);
        Assert.Equal(-2, Ttl(pair, key));
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void An_entry_that_expires_while_in_flight_is_dropped_on_arrival(StoreKind kind)
    {
        using var pair = new MigrationPair(kind, kind);
        MigrationPair.Set(pair.Source, MigrationPair.KeyOf(1), MigrationPair.Bytes("short"), new ExpirySpec(pair.Now + 100));
        MigrationPair.Set(pair.Source, MigrationPair.KeyOf(2), MigrationPair.Bytes("long"), new ExpirySpec(pair.Now + 10_000));
        var chunks = MigrationPair.WriteAllChunks(pair.Source.Find(pair.MovingSlot)!, ChunkBytes);
        Assert.Equal(2, MigrationPair.KeysIn(Assert.Single(chunks)).Count);

        pair.Advance(100);
        var arriving = pair.Target.CreateDetached(pair.MovingSlot);
        var installed = arriving.Install(chunks[0]);

        Assert.Equal(1, installed);
        Assert.Equal(1, arriving.Count);
        Assert.Equal(pair.Target.EstimateSize(MigrationPair.KeyOf(2).Length, 4), pair.Target.Budget.Used);
        arriving.Dispose();
        Assert.Equal(0, pair.Target.Budget.Used);
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void Removals_while_streaming_never_make_the_cursor_skip_an_entry(StoreKind kind)
    {
        using var pair = new MigrationPair(kind, kind);
        for (var i = 0; i < 300; i++)
        {
            MigrationPair.Set(pair.Source, MigrationPair.KeyOf(i), new byte[100]);
        }

        var grain = pair.Turns.Hold(pair.Source.Find(pair.MovingSlot)!);
        var buffer = new System.Buffers.ArrayBufferWriter<byte>();
        var cursor = 0;
        var sent = new HashSet<string>();
        var removed = new HashSet<string>();
        var round = 0;
        while (grain.WriteChunk(ref cursor, 2048, buffer))
        {
            sent.UnionWith(MigrationPair.KeysIn(buffer.WrittenSpan.ToArray()));
            buffer.ResetWrittenCount();

            // Expiry or eviction meanwhile: remove entries already sent and entries not sent yet.
            for (var i = round; i < 300; i += 37)
            {
                var key = MigrationPair.KeyOf(i);
                if (grain.Remove(MigrationPair.Bytes(key)))
                {
                    removed.Add(key);
                }
            }

            round++;
        }

        Assert.True(round > 5);
        Assert.NotEmpty(removed);
        for (var i = 0; i < 300; i++)
        {
            var key = MigrationPair.KeyOf(i);
            Assert.True(sent.Contains(key) || removed.Contains(key), key);
        }
    }

    [Fact]
    public void An_empty_grain_writes_no_chunk()
    {
        using var pair = new MigrationPair(StoreKind.Native, StoreKind.Native);
        var grain = pair.Source.GetOrCreate(pair.MovingSlot);
        var buffer = new System.Buffers.ArrayBufferWriter<byte>();
        var cursor = 0;

        Assert.False(grain.WriteChunk(ref cursor, ChunkBytes, buffer));
        Assert.Equal(0, buffer.WrittenCount);
        Assert.Throws<ArgumentOutOfRangeException>(() => grain.WriteChunk(ref cursor, 0, buffer));
    }

    private static byte[] ValueOf(int i)
    {
        var value = new byte[ValueSizes[i % ValueSizes.Length]];
        new Random(i).NextBytes(value);
        return value;
    }

    private static uint FlagsOf(int i) => i % 3 == 0 ? 0 : (uint)i * 2_654_435_761u;

    /// <summary>Six kinds of expiry; kinds 4 and 5 are expired one second after the start.</summary>
    private static ExpirySpec ExpiryOf(int i, long start) => (i % 6) switch
    {
        0 => ExpirySpec.Never,
        1 => new ExpirySpec(start + 10_000 + i),
        2 => new ExpirySpec(start + 60_000 + i, SlidingWindow: 5000 + i),
        3 => new ExpirySpec(0, SlidingWindow: 3000 + i),
        4 => new ExpirySpec(start + 500),
        _ => new ExpirySpec(start + 100_000, SlidingWindow: 200),
    };

    private static bool IsLiveAfterOneSecond(int i) => i % 6 < 4;

    private static long Ttl(MigrationPair pair, string key) =>
        pair.Turns.Hold(pair.Target.GetOrCreate(MigrationPair.Bytes(key))).TryGetMetadata(MigrationPair.Bytes(key), out var metadata, out var now) ? metadata.TimeToLive(now) : -2;

    private static bool Slide(MigrationPair pair, string key) => pair.Turns.Hold(pair.Target.GetOrCreate(MigrationPair.Bytes(key))).Refresh(MigrationPair.Bytes(key));

    private struct TwoFields : Cubby.Grains.Hashes.IHashEdit
    {
        public readonly bool Apply(Cubby.Grains.Hashes.HashFields current, ref Cubby.Grains.Hashes.HashBuilder next)
        {
            next.Add("absexp"u8, "-1"u8);
            next.Add("data"u8, [1, 2, 3]);
            return true;
        }
    }
}
