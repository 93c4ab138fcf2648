namespace Cubby.Client;

/// <summary>
/// Reads a Cubby connection string, as orchestrators hand one to an app (<c>ConnectionStrings:cubby</c>): seed silos
/// as <c>host:port</c> separated by commas, and optionally <c>password=...</c>, such as
/// <c>127.0.0.1:7001,127.0.0.1:7002,password=secret</c>.
/// </summary>
internal static class CubbyConnectionString
{
    private const string PasswordOption = "password=";

    /// <summary>Adds the connection string's endpoints (those not listed yet) and its password, unless one is set.</summary>
    /// <exception cref="InvalidOperationException">An item is neither <c>host:port</c> nor <c>password=</c>.</exception>
    public static void ApplyTo(CubbyClientOptions options, string connectionString)
    {
        var setting = $"ConnectionStrings:{CubbyClientOptions.ConnectionStringName}";
        foreach (var item in connectionString.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
        {
            if (item.StartsWith(PasswordOption, StringComparison.OrdinalIgnoreCase))
            {
                options.Password ??= item[PasswordOption.Length..];
            }
            else if (EndpointAddress.TryParse(item, out _, out _))
            {
                if (!options.Endpoints.Contains(item))
                {
                    options.Endpoints.Add(item);
                }
            }
            else
            {
                throw new InvalidOperationException($"{setting} has '{item}', which is neither host:port (a port from 1 to 65535) nor password=...");
            }
        }
    }
}
