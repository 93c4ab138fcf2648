using Orleans;

namespace Cubby.Sharding;

/// <summary>
/// A command of a transaction reached a shard that the transaction no longer holds: the shard's hold ended (its outcome
/// decided without this command, for instance by the transaction's last shard after the silo running it stopped
/// answering), so the command is refused rather than run outside the transaction's isolation.
/// </summary>
[GenerateSerializer]
[Alias("cubby.hold-ended")]
public sealed class HoldEndedException : Exception
{
    /// <summary>Creates the exception with the default message.</summary>
    public HoldEndedException()
        : base("The transaction no longer holds this shard; the command was not run.")
    {
    }

    /// <summary>Creates the exception with a message.</summary>
    /// <param name="message">The message.</param>
    public HoldEndedException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and the exception that caused it.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The cause.</param>
    public HoldEndedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>The exception for <paramref name="slot"/>.</summary>
    /// <param name="slot">The shard.</param>
    /// <returns>The exception.</returns>
    public static HoldEndedException For(int slot) =>
        new($"The transaction no longer holds shard {slot} (its outcome was decided without this command); the command was not run.");
}
