using Orleans;

namespace Cubby.Sharding;

/// <summary>
/// A call reached its shard after its caller's deadline (<see cref="CallDeadline"/>), so the shard did not run it: the
/// caller has stopped waiting, and running it now could undo what the caller did since. Not worth trying again.
/// </summary>
[GenerateSerializer]
[Alias("cubby.call-deadline")]
public sealed class CallDeadlineException : Exception
{
    /// <summary>Creates the exception with the default message.</summary>
    public CallDeadlineException()
        : base("The call reached its shard after its caller's deadline, so it was not run.")
    {
    }

    /// <summary>Creates the exception with a message.</summary>
    /// <param name="message">The message.</param>
    public CallDeadlineException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and the exception that caused it.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The cause.</param>
    public CallDeadlineException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
