namespace Cubby.Client;

/// <summary>
/// Reads a Cubby connection string, as orchestrators hand one to an app (<c>ConnectionStrings:cubby</c>): silos' gateway
/// endpoints as <c>host:port</c> separated by commas, such as <c>10.0.0.5:30000,10.0.0.6:30000</c>.
/// </summary>
internal static class CubbyConnectionString
{
    /// <summary>Adds the connection string's endpoints that are not listed yet.</summary>
    /// <exception cref="InvalidOperationException">An item is not <c>host:port</c>.</exception>
    public static void ApplyTo(CubbyClientOptions options, string connectionString)
    {
        foreach (var item in connectionString.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
        {
            if (!EndpointAddress.TryParse(item, out _, out _))
            {
                throw new InvalidOperationException(
                    $"ConnectionStrings:{CubbyClientOptions.ConnectionStringName} has '{item}', which is not a silo gateway as host:port (a port from 1 to 65535).");
            }

            if (!options.Endpoints.Contains(item))
            {
                options.Endpoints.Add(item);
            }
        }
    }
}
