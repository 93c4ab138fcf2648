using System.Buffers;

namespace Cubby.Tests.Resp;

/// <summary>A segment of a hand-built multi-segment sequence, to feed parsers data split at chosen boundaries.</summary>
internal sealed class TestSegment : ReadOnlySequenceSegment<byte>
{
    public TestSegment(ReadOnlyMemory<byte> memory, TestSegment? previous)
    {
        Memory = memory;
        if (previous is not null)
        {
            RunningIndex = previous.RunningIndex + previous.Memory.Length;
            previous.Next = this;
        }
    }
}
