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

/// <summary>No silo's gateway could be reached, or no silo could take a call before its timeout.</summary>
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
}
