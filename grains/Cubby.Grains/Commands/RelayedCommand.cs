using Cubby.Resp;
using Orleans;

namespace Cubby.Grains.Commands;

/// <summary>
/// A command on keys travelling to the shard of its keys on another silo (<see cref="IShardCommands.Run"/>): its
/// arguments as parsed, the name first, laid end to end.
/// </summary>
[GenerateSerializer]
[Immutable]
public sealed class RelayedCommand
{
    /// <summary>Every argument's bytes, one after another.</summary>
    [Id(0)]
    public required byte[] Arguments { get; init; }

    /// <summary>Each argument's length, in order.</summary>
    [Id(1)]
    public required int[] Lengths { get; init; }

    /// <summary>The protocol of the client connection the reply goes back to.</summary>
    [Id(2)]
    public RespVersion Protocol { get; init; }

    /// <summary>The silo whose tracking connection sent it, when its reads are to be tracked; see <see cref="CommandContext.TrackReadsFor"/>.</summary>
    [Id(3)]
    public SiloAddress? TrackReadsFor { get; init; }

    /// <summary>Builds the command from <paramref name="count"/> arguments read by <paramref name="argument"/>.</summary>
    /// <param name="count">How many arguments, the name included.</param>
    /// <param name="argument">The bytes of argument <c>i</c>.</param>
    /// <param name="protocol">The client connection's protocol.</param>
    /// <param name="trackReadsFor">The silo whose tracking connection sent it, when its reads are to be tracked.</param>
    public static RelayedCommand Create(int count, ArgumentReader argument, RespVersion protocol, SiloAddress? trackReadsFor = null)
    {
        var lengths = new int[count];
        var total = 0;
        for (var i = 0; i < count; i++)
        {
            total += lengths[i] = argument(i).Length;
        }

        var bytes = new byte[total];
        var offset = 0;
        for (var i = 0; i < count; i++)
        {
            argument(i).CopyTo(bytes.AsSpan(offset));
            offset += lengths[i];
        }

        return new RelayedCommand { Arguments = bytes, Lengths = lengths, Protocol = protocol, TrackReadsFor = trackReadsFor };
    }

    /// <summary>Reads one argument of a command being relayed.</summary>
    /// <param name="index">The argument's position, 0 being the command's name.</param>
    public delegate ReadOnlySpan<byte> ArgumentReader(int index);

    /// <summary>Loads the arguments into <paramref name="request"/>, emptied first.</summary>
    internal void CopyTo(RespRequest request)
    {
        request.Reset();
        var offset = 0;
        foreach (var length in Lengths)
        {
            request.Append(Arguments.AsSpan(offset, length));
            offset += length;
        }
    }
}

/// <summary>The reply of a <see cref="RelayedCommand"/>, with what the calling silo needs to merge and count it.</summary>
[GenerateSerializer]
[Immutable]
public sealed class RelayedReply
{
    /// <summary>One whole RESP reply, in the client's protocol.</summary>
    [Id(0)]
    public required byte[] Reply { get; init; }

    /// <summary>
    /// For a per-key array reply (MGET's), where its header and then each element end in <see cref="Reply"/>, so the
    /// replies of a split command's shares are merged without parsing; null otherwise.
    /// </summary>
    [Id(1)]
    public int[]? Boundaries { get; init; }

    /// <summary>Reads that found their key.</summary>
    [Id(2)]
    public long Hits { get; init; }

    /// <summary>Reads that did not find their key.</summary>
    [Id(3)]
    public long Misses { get; init; }
}
