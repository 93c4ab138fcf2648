using System.Buffers;
using System.Text;
using Cubby.Client.Tagging;

namespace Cubby.Tests.Client;

/// <summary>How the epochs an entry was written under are read from its header, once for every entry sharing the header.</summary>
public sealed class WrittenEpochsTableTests
{
    [Fact]
    public void A_header_is_read_once_and_its_epochs_shared_by_every_value_written_under_it()
    {
        var table = new WrittenEpochsTable();

        Assert.True(table.TryRead(Payload(5, [("shelf", 7), ("aisle", 9)], "first"), out var firstOffset, out var first));
        Assert.True(table.TryRead(Payload(5, [("shelf", 7), ("aisle", 9)], "a longer second value"), out var secondOffset, out var second));

        Assert.Same(first, second);
        Assert.Equal(firstOffset, secondOffset);
        Assert.True(first.CarriesAll);
    }

    [Fact]
    public void Headers_that_differ_in_any_epoch_tag_or_order_are_read_apart()
    {
        var table = new WrittenEpochsTable();
        WrittenEpochs Read(long all, (string, long)[] tags) =>
            table.TryRead(Payload(all, tags, "value"), out _, out var epochs) ? epochs : throw new InvalidOperationException("no header");

        var original = Read(5, [("shelf", 7), ("aisle", 9)]);

        Assert.NotSame(original, Read(6, [("shelf", 7), ("aisle", 9)]));
        Assert.NotSame(original, Read(5, [("shelf", 8), ("aisle", 9)]));
        Assert.NotSame(original, Read(5, [("aisle", 9), ("shelf", 7)]));
        Assert.NotSame(original, Read(5, [("shelf", 7)]));
        Assert.False(Read(0, [("shelf", 7)]).CarriesAll);
    }

    [Fact]
    public void The_value_starts_right_after_the_header()
    {
        var payload = Payload(5, [("shelf", 7)], "value");

        Assert.True(new WrittenEpochsTable().TryRead(payload, out var offset, out _));

        Assert.Equal("value", Encoding.UTF8.GetString(payload.AsSpan(offset)));
    }

    [Fact]
    public void Bytes_that_are_not_a_whole_header_are_not_read_as_one()
    {
        var table = new WrittenEpochsTable();
        var whole = Payload(5, [("shelf", 7)], string.Empty);

        Assert.False(table.TryRead(Encoding.UTF8.GetBytes("plain value"), out _, out _));
        Assert.False(table.TryRead([], out _, out _));
        for (var length = 1; length < whole.Length; length++)
        {
            Assert.False(table.TryRead(whole.AsSpan(0, length), out _, out _));
        }

        Assert.True(table.TryRead(whole, out var offset, out _));
        Assert.Equal(whole.Length, offset);
    }

    [Fact]
    public void More_headers_than_the_table_keeps_are_all_still_read_right()
    {
        var table = new WrittenEpochsTable();

        for (var epoch = 1L; epoch <= 3000; epoch++)
        {
            Assert.True(table.TryRead(Payload(epoch, [("shelf", epoch * 2)], "value"), out _, out var epochs));
            Assert.True(epochs.CarriesAll);
        }

        Assert.True(table.TryRead(Payload(3000, [("shelf", 6000)], "again"), out _, out var last));
        Assert.True(table.TryRead(Payload(3000, [("shelf", 6000)], "and again"), out _, out var same));
        Assert.Same(last, same);
    }

    private static byte[] Payload(long all, (string Tag, long Epoch)[] tags, string value)
    {
        var writer = new ArrayBufferWriter<byte>();
        TaggedPayload.WriteHeader(writer, all, tags);
        Encoding.UTF8.GetBytes(value, writer);
        return writer.WrittenSpan.ToArray();
    }
}
