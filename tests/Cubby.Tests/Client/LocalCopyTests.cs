using System.Buffers;
using System.Text;
using Cubby.Client;
using Cubby.Client.Hybrid;
using Cubby.Client.Tagging;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

/// <summary>How HybridCache's local copies are made from stored bytes, and what a new value shares with the copy it replaced.</summary>
public sealed class LocalCopyTests : IDisposable
{
    private readonly ServiceProvider _services = new ServiceCollection().AddCubbyClient(static _ => { }).AddCubbyHybridCache().Services.BuildServiceProvider();

    private HybridSerializers Serializers => _services.GetRequiredService<HybridSerializers>();

    public void Dispose() => _services.Dispose();

    [Fact]
    public void Values_under_the_same_header_share_one_set_of_epochs_and_values_under_another_do_not()
    {
        var written = new WrittenEpochsTable();
        var first = LocalCopy.Of<string>(Payload(("shelf", 7), "v0"), Serializers, localDeadline: 0, written)!;
        var same = LocalCopy.Of<string>(Payload(("shelf", 7), "v1"), Serializers, localDeadline: 0, written)!;
        var newEpoch = LocalCopy.Of<string>(Payload(("shelf", 8), "v2"), Serializers, localDeadline: 0, written)!;
        var otherTag = LocalCopy.Of<string>(Payload(("aisle", 7), "v3"), Serializers, localDeadline: 0, written)!;

        Assert.Equal(["v0", "v1", "v2", "v3"], [first.Value, same.Value, newEpoch.Value, otherTag.Value]);
        Assert.Same(first.Epochs, same.Epochs);
        Assert.NotSame(first.Epochs, newEpoch.Epochs);
        Assert.NotSame(first.Epochs, otherTag.Epochs);
    }

    [Fact]
    public void Bytes_without_a_header_or_with_one_not_carrying_everything_are_not_read_as_an_entry()
    {
        var written = new WrittenEpochsTable();
        var untagged = new ArrayBufferWriter<byte>();
        TaggedPayload.WriteHeader(untagged, allEpoch: 0, [("shelf", 7)]);

        Assert.Null(LocalCopy.Of<string>(Encoding.UTF8.GetBytes("plain"), Serializers, localDeadline: 0, written));
        Assert.Null(LocalCopy.Of<string>(untagged.WrittenSpan.ToArray(), Serializers, localDeadline: 0, written));
    }

    [Fact]
    public void A_written_copy_keeps_the_instance_written_for_an_immutable_type_and_none_for_a_mutable_one()
    {
        var table = new WrittenEpochsTable();
        var first = LocalCopy.Of<string>(Payload(("shelf", 7), "v0"), Serializers, localDeadline: 0, table)!;
        var text = new string('v', 3);
        var written = LocalCopy.Written(Payload(("shelf", 7), text), text, localDeadline: 9, table)!;

        Assert.Same(text, written.Value);
        Assert.Same(first.Epochs, written.Epochs);
        Assert.Equal(9, written.LocalDeadline);
        Assert.Null(LocalCopy.Written(Payload(("shelf", 7), "[1]"), new List<int> { 1 }, localDeadline: 0, table));
    }

    [Fact]
    public void A_copy_is_read_only_as_the_type_it_was_decoded_as()
    {
        var copy = LocalCopy.Of<string>(Payload(("shelf", 7), "v0"), Serializers, localDeadline: 0, new WrittenEpochsTable())!;

        Assert.True(copy.IsOf<string>());
        Assert.False(copy.IsOf<object>());
        Assert.False(copy.IsOf<byte[]>());
    }

    /// <summary>An entry as HybridCache stores it: carrying <c>"*"</c> (epoch 5) and <paramref name="tag"/>, then <paramref name="value"/>.</summary>
    private static byte[] Payload((string Tag, long Epoch) tag, string value)
    {
        var writer = new ArrayBufferWriter<byte>();
        TaggedPayload.WriteHeader(writer, allEpoch: 5, [tag]);
        Encoding.UTF8.GetBytes(value, writer);
        return writer.WrittenSpan.ToArray();
    }
}
