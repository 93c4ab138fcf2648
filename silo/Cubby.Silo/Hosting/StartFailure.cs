using Microsoft.Extensions.Options;

namespace Cubby.Silo.Hosting;

/// <summary>
/// What a silo that cannot start tells its operator. An exception left unhandled aborts a .NET process on Linux (exit
/// 134, and a core dump where those are enabled) with the cause under a stack trace; a silo prints the cause instead and
/// exits with <see cref="ExitCode"/>.
/// </summary>
internal static class StartFailure
{
    public const int ExitCode = 1;

    /// <summary>
    /// One line for a failure the operator can fix (a setting, a port); the whole exception for anything else. Orleans
    /// and the host wrap what a start step threw, so the causes are searched.
    /// </summary>
    public static string Describe(Exception exception) => "The Cubby silo could not start: " + Cause(exception);

    /// <summary>The message of the failure the operator can fix, or the whole exception for anything else.</summary>
    public static string Cause(Exception exception) =>
        Causes(exception).FirstOrDefault(static cause => cause is SiloStartException or OptionsValidationException)?.Message ?? exception.ToString();

    private static IEnumerable<Exception> Causes(Exception exception)
    {
        yield return exception;
        IEnumerable<Exception> inner = exception switch
        {
            AggregateException aggregate => aggregate.InnerExceptions,
            { InnerException: { } one } => [one],
            _ => [],
        };
        foreach (var cause in inner.SelectMany(Causes))
        {
            yield return cause;
        }
    }
}
