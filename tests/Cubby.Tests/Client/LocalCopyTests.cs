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
    public void A_new_value_under_the_same_header_shares_the_epochs_of_the_copy_it_replaced_and_one_under_another_does_not()
    {
        var first = LocalCopy.Of<string>(Payload(("shelf", 7), "v0"), Serializers, localDeadline: 0)!;
        var same = LocalCopy.Of<string>(Payload(("shelf", 7), "v1"), Serializers, localDeadline: 0, earlier: first)!;
        var newEpoch = LocalCopy.Of<string>(Payload(("shelf", 8), "v2"), Serializers, localDeadline: 0, earlier: first)!;
        var otherTag = LocalCopy.Of<string>(Payload(("aisle", 7), "v3"), Serializers, localDeadline: 0, earlier: first)!;

        Assert.Equal(["v0", "v1", "v2", "v3"], [first.Value, same.Value, newEpoch.Value, otherTag.Value]);
        Assert.Same(first.Epochs, same.Epochs);
        Assert.NotSame(first.Epochs, newEpoch.Epochs);
        Assert.NotSame(first.Epochs, otherTag.Epochs);
    }

    [Fact]
    public void Bytes_that_only_start_like_the_earlier_header_are_not_read_as_an_entry()
    {
        var first = LocalCopy.Of<string>(Payload(("shelf", 7), "v0"), Serializers, localDeadline: 0)!;

        Assert.Null(LocalCopy.Of<string>(Encoding.UTF8.GetBytes("plain"), Serializers, localDeadline: 0, earlier: first));
    }

    [Fact]
    public void A_written_copy_keeps_the_instance_written_for_an_immutable_type_and_none_for_a_mutable_one()
    {
        var first = LocalCopy.Of<string>(Payload(("shelf", 7), "v0"), Serializers, localDeadline: 0)!;
        var text = new string('v', 3);
        var written = LocalCopy.Written(Payload(("shelf", 7), text), text, localDeadline: 9, earlier: first)!;

        Assert.Same(text, written.Value);
        Assert.Same(first.Epochs, written.Epochs);
        Assert.Equal(9, written.LocalDeadline);
        Assert.Null(LocalCopy.Written(Payload(("shelf", 7), "[1]"), new List<int> { 1 }, localDeadline: 0, earlier: first));
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
