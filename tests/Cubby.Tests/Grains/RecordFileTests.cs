using Cubby.Grains.Persistence;

namespace Cubby.Tests.Grains;

/// <summary>The files a silo keeps shards in: records read back as written, and a file cut short or damaged read up to its last good record.</summary>
public sealed class RecordFileTests : IDisposable
{
    private readonly DirectoryInfo _folder = Directory.CreateTempSubdirectory("cubby-records-");

    private static readonly (byte Kind, byte[] Payload)[] Records =
    [
        (1, [1, 2, 3]),
        (2, []),
        (3, Enumerable.Range(0, 70_000).Select(static i => (byte)i).ToArray()),
        (255, "last"u8.ToArray()),
    ];

    public void Dispose() => _folder.Delete(recursive: true);

    [Fact]
    public void Records_read_back_as_they_were_appended_with_the_file_kind_and_slot()
    {
        var bytes = Written(RecordFileKind.Changes, 1023);
        var reader = RecordReader.Open(new MemoryStream(bytes), out var problem);

        Assert.Null(problem);
        Assert.Equal((RecordFileKind.Changes, 1023), (reader!.Kind, reader.Slot));
        Assert.Equal(Records.Select(static r => (r.Kind, Convert.ToHexString(r.Payload))), ReadAll(reader).Select(static r => (r.Kind, Convert.ToHexString(r.Payload))));
        Assert.Null(reader.Problem);
        Assert.Equal(bytes.Length, reader.Offset);
    }

    [Fact]
    public void A_file_cut_short_anywhere_reads_the_records_before_the_cut_and_says_where()
    {
        var bytes = Written(RecordFileKind.Snapshot, 7);
        var ends = RecordEnds(bytes);
        for (var length = RecordFormat.HeaderBytes; length < bytes.Length; length++)
        {
            var reader = RecordReader.Open(new MemoryStream(bytes[..length]), out _)!;
            var read = ReadAll(reader);

            var lastWhole = ends.Where(end => end <= length).DefaultIfEmpty(RecordFormat.HeaderBytes).Max();
            Assert.Equal(ends.Count(end => end <= length), read.Count);
            Assert.Equal(lastWhole, reader.Offset);
            if (length == lastWhole)
            {
                Assert.Null(reader.Problem);
            }
            else
            {
                Assert.StartsWith($"a record at byte {lastWhole} is cut short", reader.Problem);
            }
        }
    }

    [Fact]
    public void A_damaged_byte_stops_the_reading_at_its_record()
    {
        var bytes = Written(RecordFileKind.Changes, 1);
        var ends = RecordEnds(bytes);

        // A byte in the third record's payload.
        bytes[ends[1] + RecordFormat.RecordHeaderBytes + 100] ^= 0x40;
        var reader = RecordReader.Open(new MemoryStream(bytes), out _)!;

        Assert.Equal(2, ReadAll(reader).Count);
        Assert.Equal($"a record at byte {ends[1]} fails its checksum", reader.Problem);
    }

    [Fact]
    public void A_huge_length_is_read_as_damage_without_allocating_it()
    {
        var bytes = Written(RecordFileKind.Changes, 1);
        var ends = RecordEnds(bytes);
        bytes[ends[0] + 3] = 0x7F;
        var reader = RecordReader.Open(new MemoryStream(bytes), out _)!;

        Assert.Single(ReadAll(reader));
        Assert.Contains($"a record at byte {ends[0]} gives a length of", reader.Problem);
    }

    [Theory]
    [InlineData(10, "shorter than its 20-byte header")]
    [InlineData(0, "does not start as a Cubby record file")]
    [InlineData(9, "header fails its checksum")]
    public void A_file_with_a_bad_header_is_refused_with_the_reason(int damagedAt, string reason)
    {
        var bytes = Written(RecordFileKind.Snapshot, 1);
        if (damagedAt == 10)
        {
            bytes = bytes[..10];
        }
        else
        {
            bytes[damagedAt] ^= 1;
        }

        Assert.Null(RecordReader.Open(new MemoryStream(bytes), out var problem));
        Assert.Contains(reason, problem);
    }

    [Fact]
    public void A_whole_file_write_replaces_the_file_and_leaves_nothing_beside_it()
    {
        var path = Path.Combine(_folder.FullName, "shard-0001.snapshot");
        WholeFile.Write(path, RecordFileKind.Snapshot, 1, static writer => writer.Append(1, "first"u8));
        WholeFile.Write(path, RecordFileKind.Snapshot, 1, static writer => writer.Append(1, "second"u8));

        using var stream = File.OpenRead(path);
        Assert.Equal(["second"], ReadAll(RecordReader.Open(stream, out _)!).Select(static r => System.Text.Encoding.UTF8.GetString(r.Payload)));
        Assert.Equal([path], Directory.GetFiles(_folder.FullName));
    }

    [Fact]
    public void A_whole_file_write_that_fails_midway_leaves_the_file_before_it()
    {
        var path = Path.Combine(_folder.FullName, "shard-0002.snapshot");
        WholeFile.Write(path, RecordFileKind.Snapshot, 2, static writer => writer.Append(1, "kept"u8));

        Assert.Throws<InvalidOperationException>(() => WholeFile.Write(path, RecordFileKind.Snapshot, 2, static writer =>
        {
            writer.Append(1, "lost"u8);
            throw new InvalidOperationException("the writer failed");
        }));

        using var stream = File.OpenRead(path);
        Assert.Equal(["kept"], ReadAll(RecordReader.Open(stream, out _)!).Select(static r => System.Text.Encoding.UTF8.GetString(r.Payload)));
        Assert.Equal([path], Directory.GetFiles(_folder.FullName));
    }

    [Fact]
    public void A_record_over_the_limit_is_refused_as_it_is_appended()
    {
        using var writer = new RecordWriter(new MemoryStream(), RecordFileKind.Changes, 1);

        Assert.Throws<ArgumentOutOfRangeException>(() => writer.Append(1, new byte[RecordFormat.MaxPayloadBytes + 1]));
    }

    private static byte[] Written(RecordFileKind kind, int slot)
    {
        var stream = new MemoryStream();
        var writer = new RecordWriter(stream, kind, slot);
        foreach (var (recordKind, payload) in Records)
        {
            writer.Append(recordKind, payload);
        }

        writer.Flush(toDisk: false);
        return stream.ToArray();
    }

    /// <summary>Where each of <see cref="Records"/> ends in a file of them.</summary>
    private static List<int> RecordEnds(byte[] bytes)
    {
        var ends = new List<int>();
        var end = RecordFormat.HeaderBytes;
        foreach (var (_, payload) in Records)
        {
            end += RecordFormat.RecordHeaderBytes + payload.Length;
            ends.Add(end);
        }

        Assert.Equal(bytes.Length, end);
        return ends;
    }

    private static List<(byte Kind, byte[] Payload)> ReadAll(RecordReader reader)
    {
        var records = new List<(byte, byte[])>();
        while (reader.TryRead(out var kind, out var payload))
        {
            records.Add((kind, payload));
        }

        return records;
    }
}
