namespace Cubby.Grains.Commands;

/// <summary>How the replies of a multi-key command's shares, run on different shards, become one reply.</summary>
internal enum ReplyMerge
{
    /// <summary>The command may not be split: all its keys must be in shards this silo holds (MSETNX, atomic).</summary>
    None,

    /// <summary>One array element per key, put back in the keys' order (MGET).</summary>
    ByKey,

    /// <summary>Integers added up (DEL, UNLINK, EXISTS).</summary>
    Sum,

    /// <summary>+OK when every share answered +OK (MSET).</summary>
    AllOk,
}
