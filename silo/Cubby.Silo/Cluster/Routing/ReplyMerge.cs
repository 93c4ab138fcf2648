namespace Cubby.Silo.Cluster.Routing;

/// <summary>How the replies of a multi-key command's shares, run on different silos, become one reply.</summary>
internal enum ReplyMerge
{
    /// <summary>The command may not be split: all its keys must live on one silo (MSETNX, atomic).</summary>
    None,

    /// <summary>One array element per key, put back in the keys' order (MGET).</summary>
    ByKey,

    /// <summary>Integers added up (DEL, UNLINK, EXISTS).</summary>
    Sum,

    /// <summary>+OK when every share answered +OK (MSET).</summary>
    AllOk,
}
