using System.Diagnostics;

namespace Cubby.Tests.Infrastructure;

/// <summary>How tests start a built .NET program (the silo, the load harness) as a real child process.</summary>
internal static class DotnetProcess
{
    /// <summary>How to run <paramref name="assemblyPath"/>, from <paramref name="workingDirectory"/> (the tests' own directory when null).</summary>
    public static ProcessStartInfo StartInfo(string assemblyPath, IEnumerable<string> arguments, string? workingDirectory = null)
    {
        var start = new ProcessStartInfo("dotnet")
        {
            WorkingDirectory = workingDirectory ?? AppContext.BaseDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(assemblyPath);
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return start;
    }
}
