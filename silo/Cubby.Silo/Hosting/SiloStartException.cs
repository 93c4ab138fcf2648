namespace Cubby.Silo.Hosting;

/// <summary>
/// Why a silo cannot start, in words for its operator (a port another process holds, for one): the process prints the
/// message and exits with <see cref="StartFailure.ExitCode"/>.
/// </summary>
internal sealed class SiloStartException : Exception
{
    public SiloStartException(string message)
        : base(message)
    {
    }

    public SiloStartException(string message, Exception inner)
        : base(message, inner)
    {
    }
}
