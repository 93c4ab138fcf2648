using System.Text;
using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

/// <summary>Copies what a grain hands it, so a test can look at it after the turn.</summary>
internal sealed class CapturingReader : IEntryReader
{
    public int Calls { get; private set; }

    public byte[]? Value { get; private set; }

    public EntryMetadata Metadata { get; private set; }

    public long Now { get; private set; }

    public string? Text => Value is null ? null : Encoding.UTF8.GetString(Value);

    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
    {
        Calls++;
        Value = value.ToArray();
        Metadata = metadata;
        Now = now;
    }
}
