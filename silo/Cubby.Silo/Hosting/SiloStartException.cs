namespace Cubby.Silo.Hosting;

/// <summary>
/// Why a silo cannot start, in words for its operator (a port another process holds, for one): the process prints the
/// message and exits with <see cref="StartFailure.ExitCode"/>.
/// </summary>
internal sealed class SiloStartException(string message) : Exception(message);
