namespace Cubby.AppHost;

/// <summary>What every resource needs: the options, the console, and this run's id (for folder and cluster names).</summary>
internal sealed record DevContext(AppHostOptions Options, ConsoleOutput Output, string RunId);
