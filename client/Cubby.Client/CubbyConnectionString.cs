namespace Cubby.Client;

/// <summary>
/// Reads a Cubby connection string, as orchestrators hand one to an app (<c>ConnectionStrings:cubby</c>, or the
/// connection an Aspire AppHost's <c>WithReference</c> names), in either of two forms:
/// <list type="bullet">
/// <item><description>
/// <c>key=value</c> pairs separated by <c>;</c>, as Aspire hands one:
/// <c>Endpoints=10.0.0.5:30000,10.0.0.6:30000;ClusterId=cubby-dev;ServiceId=cubby</c>. The keys, case-insensitive, are
/// <c>Endpoints</c> (silos' gateway endpoints as <c>host:port</c> separated by commas), <c>ClusterId</c> and
/// <c>ServiceId</c>; each is optional.
/// </description></item>
/// <item><description>Only the gateway endpoints as <c>host:port</c> separated by commas: <c>10.0.0.5:30000,10.0.0.6:30000</c>.</description></item>
/// </list>
/// </summary>
/// <remarks>
/// The string is in the <c>key=value</c> form when it starts with a name followed by <c>=</c>. Its endpoints are added to
/// <see cref="CubbyClientOptions.Endpoints"/> (those listed already stay), and its <c>ClusterId</c> and
/// <c>ServiceId</c> replace <see cref="CubbyClientOptions.ClusterId"/> and <see cref="CubbyClientOptions.ServiceId"/>.
/// </remarks>
public static class CubbyConnectionString
{
    /// <summary>The keys of the <c>key=value</c> form, for messages.</summary>
    private const string Keys = "Endpoints, ClusterId and ServiceId";

    /// <summary>
    /// Applies a connection string to <paramref name="options"/>: adds its endpoints that are not listed yet, and sets
    /// the cluster id and service id it has.
    /// </summary>
    /// <param name="options">The options to change.</param>
    /// <param name="connectionString">The connection string, in either form.</param>
    /// <param name="source">Where it was read, named in errors: <c>ConnectionStrings:cubby</c> unless given.</param>
    /// <exception cref="InvalidOperationException">
    /// An endpoint is not <c>host:port</c>, a key is not one of <c>Endpoints</c>, <c>ClusterId</c> and <c>ServiceId</c>,
    /// an item has no <c>=</c>, or a value is empty; the message names <paramref name="source"/> and the item (for an
    /// unknown key, the key only: its value may be a secret meant for something else).
    /// </exception>
    public static void ApplyTo(CubbyClientOptions options, string connectionString, string? source = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(connectionString);
        source ??= $"ConnectionStrings:{CubbyClientOptions.ConnectionStringName}";
        if (!IsKeyValueForm(connectionString))
        {
            AddEndpoints(options, connectionString, source, inKey: false);
            return;
        }

        foreach (var item in connectionString.Split(';', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
        {
            var equals = item.IndexOf('=', StringComparison.Ordinal);
            if (equals < 0)
            {
                throw new InvalidOperationException($"{source} has '{item}', which is not key=value (the keys are {Keys}).");
            }

            var key = item[..equals].Trim();
            var value = item[(equals + 1)..].Trim();
            if (key.Equals("Endpoints", StringComparison.OrdinalIgnoreCase))
            {
                AddEndpoints(options, value, source, inKey: true);
            }
            else if (key.Equals("ClusterId", StringComparison.OrdinalIgnoreCase))
            {
                options.ClusterId = NotEmpty(value, key, source);
            }
            else if (key.Equals("ServiceId", StringComparison.OrdinalIgnoreCase))
            {
                options.ServiceId = NotEmpty(value, key, source);
            }
            else
            {
                throw new InvalidOperationException($"{source} has the key '{key}', which Cubby does not know (the keys are {Keys}, in any case).");
            }
        }
    }

    /// <summary>Whether the string starts with a name and <c>=</c>; a <c>host:port</c> list never does.</summary>
    private static bool IsKeyValueForm(string connectionString)
    {
        var text = connectionString.AsSpan().TrimStart();
        var length = 0;
        while (length < text.Length && (char.IsAsciiLetterOrDigit(text[length]) || text[length] == '_'))
        {
            length++;
        }

        return length > 0 && char.IsAsciiLetter(text[0]) && text[length..].TrimStart().StartsWith('=');
    }

    private static void AddEndpoints(CubbyClientOptions options, string list, string source, bool inKey)
    {
        var items = list.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries);
        if (inKey && items.Length == 0)
        {
            throw new InvalidOperationException($"{source} has Endpoints with no endpoint; list silo gateways as host:port separated by commas.");
        }

        foreach (var item in items)
        {
            if (!EndpointAddress.TryParse(item, out _, out _))
            {
                throw new InvalidOperationException(
                    $"{source} has '{item}'{(inKey ? " in Endpoints" : string.Empty)}, which is not a silo gateway as host:port (a port from 1 to 65535).");
            }

            if (!options.Endpoints.Contains(item))
            {
                options.Endpoints.Add(item);
            }
        }
    }

    private static string NotEmpty(string value, string key, string source) =>
        value.Length > 0 ? value : throw new InvalidOperationException($"{source} has an empty {key}.");
}
