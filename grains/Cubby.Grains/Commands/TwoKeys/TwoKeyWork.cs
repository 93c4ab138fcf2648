namespace Cubby.Grains.Commands.TwoKeys;

/// <summary>
/// A command on two keys (RENAME, COPY, LCS) once its arguments are read: what it does to the two entries, as one
/// atomic step, and the reply that follows. The same work runs on shards entered here (<see cref="TwoKeyRunner"/>) and,
/// when the shards are elsewhere, on their grains while a silo holds both.
/// </summary>
internal abstract class TwoKeyWork(byte[] first, byte[] second)
{
    /// <summary>The first key, copied out of the request (which its connection reuses).</summary>
    public byte[] First { get; } = first;

    /// <summary>The second key, copied out of the request.</summary>
    public byte[] Second { get; } = second;

    /// <summary>Reads and changes the entries; the outcome is kept for <see cref="WriteReply"/>.</summary>
    /// <exception cref="Sharding.CubbyOutOfMemoryException">An entry does not fit in the budget.</exception>
    public abstract ValueTask RunAsync(IEntryShards shards);

    /// <summary>Writes the one reply, after <see cref="RunAsync"/>.</summary>
    public abstract void WriteReply(CommandContext context);
}

/// <summary>Reads a two-key command's arguments; null after it wrote an error reply for a bad one.</summary>
internal delegate TwoKeyWork? TwoKeyPlanner(CommandContext context, Resp.RespRequest request);
