namespace Cubby.AppHost;

/// <summary>What the command line (and <c>ConnectionStrings:postgres</c> in the environment) asked for.</summary>
/// <param name="Silos">How many silos to start.</param>
/// <param name="PostgresConnectionString">An existing PostgreSQL to use instead of a throwaway server, or null.</param>
/// <param name="NoPostgres">Use Development clustering even when PostgreSQL is installed.</param>
/// <param name="TempRoot">Where the throwaway server's folder is made.</param>
/// <param name="StartTimeout">How long each resource may take to become healthy.</param>
/// <param name="StopTimeout">How long each resource may take to exit after it is asked to stop, before it is killed.</param>
internal sealed record AppHostOptions(int Silos, string? PostgresConnectionString, bool NoPostgres, string TempRoot, TimeSpan StartTimeout, TimeSpan StopTimeout);
