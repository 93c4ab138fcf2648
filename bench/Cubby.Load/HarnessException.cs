namespace Cubby.Load;

/// <summary>A run cannot go on; the message says why and what to do.</summary>
internal sealed class HarnessException : Exception
{
    public HarnessException()
    {
    }

    public HarnessException(string message)
        : base(message)
    {
    }

    public HarnessException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
