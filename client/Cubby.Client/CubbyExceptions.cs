namespace Cubby.Client;

/// <summary>The base of the exceptions Cubby's client throws for cache failures.</summary>
public class CubbyException : Exception
{
    /// <summary>Creates an exception with no message.</summary>
    public CubbyException()
    {
    }

    /// <summary>Creates an exception with a message.</summary>
    /// <param name="message">What went wrong.</param>
    public CubbyException(string message)
        : base(message)
    {
    }

    /// <summary>Creates an exception with a message and its cause.</summary>
    /// <param name="message">What went wrong.</param>
    /// <param name="innerException">The cause.</param>
    public CubbyException(string message, Exception? innerException)
        : base(message, innerException)
    {
    }
}

/// <summary>A silo could not be reached, or the connection to it was lost while the call was in flight.</summary>
public sealed class CubbyConnectionException : CubbyException
{
    /// <summary>Creates an exception with no message.</summary>
    public CubbyConnectionException()
    {
    }

    /// <summary>Creates an exception with a message.</summary>
    /// <param name="message">What went wrong.</param>
    public CubbyConnectionException(string message)
        : base(message)
    {
    }

    /// <summary>Creates an exception with a message and its cause.</summary>
    /// <param name="message">What went wrong.</param>
    /// <param name="innerException">The cause.</param>
    public CubbyConnectionException(string message, Exception? innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Whether the command never reached the wire or was lost on it, for the client's retry policy.</summary>
    internal Connections.CallFailure Failure { get; init; }
}

/// <summary>The silo answered the command with an error reply.</summary>
public sealed class CubbyServerException : CubbyException
{
    /// <summary>Creates an exception with no message.</summary>
    public CubbyServerException()
    {
    }

    /// <summary>Creates an exception carrying the silo's error text.</summary>
    /// <param name="message">The error reply, such as <c>ERR value is not an integer or out of range</c>.</param>
    public CubbyServerException(string message)
        : base(message)
    {
    }

    /// <summary>Creates an exception with a message and its cause.</summary>
    /// <param name="message">What went wrong.</param>
    /// <param name="innerException">The cause.</param>
    public CubbyServerException(string message, Exception? innerException)
        : base(message, innerException)
    {
    }
}
