using System.Buffers;
using System.Buffers.Binary;
using Cubby.Grains.Migration;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class MigrationChunkFormatTests
{
    [Fact]
    public void Entries_round_trip_with_every_field_and_extreme_values()
    {
        var entries = new (byte[] Key, byte[] Value, EntryMetadata Metadata)[]
        {
            ([1], [], default),
            ("k"u8.ToArray(), "v"u8.ToArray(), new EntryMetadata { Flags = uint.MaxValue }),
            ("abs"u8.ToArray(), new byte[300], new EntryMetadata { ExpiresAt = long.MaxValue }),
            ("slide"u8.ToArray(), new byte[128], new EntryMetadata { ExpiresAt = 1_800_000_000_000, SlidingWindow = 127 }),
            ("capped"u8.ToArray(), [9, 9], new EntryMetadata { ExpiresAt = 5, SlidingWindow = long.MaxValue, AbsoluteDeadline = 5, Flags = 1 }),
        };
        var buffer = new ArrayBufferWriter<byte>();
        var writer = new MigrationChunkWriter(buffer, 1023);
        foreach (var (key, value, metadata) in entries)
        {
            writer.Append(key, value, metadata);
        }

        writer.Complete();
        Assert.Equal(buffer.WrittenCount, writer.BytesWritten);

        var reader = new MigrationChunkReader(buffer.WrittenSpan);
        Assert.Equal(1023, reader.Slot);
        foreach (var (key, value, metadata) in entries)
        {
            Assert.True(reader.TryRead(out var entry));
            Assert.Equal(key, entry.Key.ToArray());
            Assert.Equal(value, entry.Value.ToArray());
            Assert.Equal(metadata, entry.Metadata);
        }

        Assert.False(reader.TryRead(out _));
        Assert.False(reader.TryRead(out _));
        Assert.Equal(entries.Length, MigrationChunkReader.Validate(buffer.WrittenSpan));
    }

    [Fact]
    public void MeasureEntry_is_exactly_what_Append_writes()
    {
        var metadata = new EntryMetadata { ExpiresAt = 1_800_000_000_000, SlidingWindow = 20 * 60_000, AbsoluteDeadline = 1_900_000_000_000, Flags = 3 };
        foreach (var valueLength in new[] { 0, 127, 128, 16_384, 70_000 })
        {
            var buffer = new ArrayBufferWriter<byte>();
            var writer = new MigrationChunkWriter(buffer, 0);
            writer.Append(new byte[200], new byte[valueLength], metadata);
            Assert.Equal(MigrationFormat.HeaderBytes + MigrationChunkWriter.MeasureEntry(200, valueLength, metadata), buffer.WrittenCount);
        }
    }

    [Fact]
    public void Metadata_no_store_could_hold_is_refused_when_written()
    {
        var writer = new MigrationChunkWriter(new ArrayBufferWriter<byte>(), 0);

        Assert.Throws<ArgumentException>(() => writer.Append([1], [], new EntryMetadata { SlidingWindow = 10 }));
        Assert.Throws<ArgumentException>(() => writer.Append([1], [], new EntryMetadata { ExpiresAt = 10, AbsoluteDeadline = 20 }));
        Assert.Throws<ArgumentException>(() => writer.Append([1], [], new EntryMetadata { ExpiresAt = 30, SlidingWindow = 5, AbsoluteDeadline = 20 }));
        Assert.Throws<ArgumentException>(() => writer.Append([1], [], new EntryMetadata { ExpiresAt = -1 }));
        Assert.Equal(0, writer.Count);
    }

    [Fact]
    public void Every_truncation_of_a_chunk_throws_and_installs_nothing()
    {
        using var pair = ChunkOfThree(out var chunk);
        var grain = pair.Target.CreateDetached(pair.MovingSlot);

        for (var length = 0; length < chunk.Length; length++)
        {
            var truncated = chunk[..length];
            var error = Assert.Throws<InvalidDataException>(() => grain.Install(truncated));
            Assert.StartsWith("Invalid migration chunk: ", error.Message, StringComparison.Ordinal);
            Assert.Equal(0, grain.Count);
            Assert.Equal(0, pair.Target.Budget.Used);
        }

        Assert.Equal(3, grain.Install(chunk));
        grain.Dispose();
    }

    [Fact]
    public void Every_single_bit_flip_is_detected_and_installs_nothing()
    {
        using var pair = ChunkOfThree(out var chunk);
        var grain = pair.Target.CreateDetached(pair.MovingSlot);

        for (var bit = 0; bit < chunk.Length * 8; bit++)
        {
            var corrupt = (byte[])chunk.Clone();
            corrupt[bit / 8] ^= (byte)(1 << (bit % 8));
            Assert.Throws<InvalidDataException>(() => grain.Install(corrupt));
            Assert.Equal(0, grain.Count);
            Assert.Equal(0, pair.Target.Budget.Used);
        }

        Assert.Equal(3, grain.Install(chunk));
        grain.Dispose();
    }

    [Fact]
    public void Random_garbage_after_a_valid_header_only_ever_throws_InvalidDataException()
    {
        var random = new Random(20261122);
        for (var round = 0; round < 5000; round++)
        {
            var chunk = new byte[MigrationFormat.HeaderBytes + random.Next(0, 64)];
            random.NextBytes(chunk);
            "CBHO"u8.CopyTo(chunk);
            chunk[4] = MigrationFormat.Version;
            BinaryPrimitives.WriteUInt32LittleEndian(chunk.AsSpan(5), 3);
            if (round % 2 == 0 && chunk.Length > MigrationFormat.HeaderBytes)
            {
                chunk[MigrationFormat.HeaderBytes] = (byte)(MigrationFormat.EntryMarker | (chunk[MigrationFormat.HeaderBytes] & 0x0F));
            }

            Assert.Throws<InvalidDataException>(() => MigrationChunkReader.Validate(chunk));
        }
    }

    [Fact]
    public void Bytes_after_the_trailer_a_wrong_slot_and_a_wrong_version_are_rejected()
    {
        using var pair = ChunkOfThree(out var chunk);
        var grain = pair.Target.CreateDetached(pair.MovingSlot);

        var longer = chunk.Append((byte)0).ToArray();
        Assert.Contains("follow the trailer", Assert.Throws<InvalidDataException>(() => grain.Install(longer)).Message, StringComparison.Ordinal);

        var other = pair.Target.CreateDetached((pair.MovingSlot + 1) % pair.Target.SlotCount);
        Assert.Contains("not slot", Assert.Throws<InvalidDataException>(() => other.Install(chunk)).Message, StringComparison.Ordinal);

        var newer = (byte[])chunk.Clone();
        newer[4] = 2;
        Assert.Contains("version 2", Assert.Throws<InvalidDataException>(() => grain.Install(newer)).Message, StringComparison.Ordinal);
        Assert.Equal(0, grain.Count + other.Count);
        grain.Dispose();
        other.Dispose();
    }

    [Fact]
    public void A_bad_chunk_in_a_stream_keeps_the_chunks_before_it_and_installs_none_of_its_own_entries()
    {
        using var pair = new MigrationPair(StoreKind.Native, StoreKind.Native);
        for (var i = 0; i < 40; i++)
        {
            MigrationPair.Set(pair.Source, MigrationPair.KeyOf(i), new byte[100]);
        }

        var chunks = MigrationPair.WriteAllChunks(pair.Source.Find(pair.MovingSlot)!, 1024);
        Assert.True(chunks.Count >= 3);
        var grain = pair.Turns.Hold(pair.Target.CreateDetached(pair.MovingSlot));
        var first = grain.Install(chunks[0]);
        var bad = (byte[])chunks[1].Clone();
        bad[^7] ^= 0x10;

        Assert.Throws<InvalidDataException>(() => grain.Install(bad));

        Assert.Equal(first, grain.Count);
        Assert.Equal(grain.UsedBytes, pair.Target.Budget.Used);
        Assert.Equal(MigrationPair.KeysIn(chunks[0]).Order(), MigrationPair.KeysIn(chunks[0]).Where(key => grain.Exists(MigrationPair.Bytes(key))).Order());
        Assert.DoesNotContain(MigrationPair.KeysIn(chunks[1]), key => grain.Exists(MigrationPair.Bytes(key)));
        Assert.Equal(40 - first, chunks.Skip(1).Sum(chunk => grain.Install(chunk)));
        grain.Dispose();
    }

    private static MigrationPair ChunkOfThree(out byte[] chunk)
    {
        var pair = new MigrationPair(StoreKind.Native, StoreKind.Native);
        MigrationPair.Set(pair.Source, MigrationPair.KeyOf(1), "one"u8.ToArray(), flags: 5);
        MigrationPair.Set(pair.Source, MigrationPair.KeyOf(2), [], new ExpirySpec(pair.Now + 60_000));
        MigrationPair.Set(pair.Source, MigrationPair.KeyOf(3), new byte[200], new ExpirySpec(pair.Now + 60_000, SlidingWindow: 1000));
        chunk = Assert.Single(MigrationPair.WriteAllChunks(pair.Source.Find(pair.MovingSlot)!, 1 << 20));
        return pair;
    }
}
