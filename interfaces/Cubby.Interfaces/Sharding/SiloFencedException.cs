using Orleans;

namespace Cubby.Sharding;

/// <summary>
/// The silo asked could not confirm, lately enough, that it is still a member of the cluster (it has not heard from a
/// majority of the silos it knows, or it learned it was declared dead), so it serves no shard: another silo may already
/// hold its shards. Trying again, through any silo, may succeed once the cluster has settled.
/// </summary>
[GenerateSerializer]
[Alias("cubby.silo-fenced")]
public sealed class SiloFencedException : Exception
{
    /// <summary>Creates the exception with the default message.</summary>
    public SiloFencedException()
        : base("This silo cannot confirm it is still a member of the cluster, so it serves no shard; try again.")
    {
    }

    /// <summary>Creates the exception with a message.</summary>
    /// <param name="message">The message.</param>
    public SiloFencedException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and the exception that caused it.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The cause.</param>
    public SiloFencedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
