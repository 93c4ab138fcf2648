using System.Globalization;
using Cubby.Silo.Clustering;
using Microsoft.Extensions.Options;

namespace Cubby.Silo.Hosting;

/// <summary>
/// Takes the <c>Orleans:*</c> settings .NET Aspire's Orleans integration gives a silo (<c>Orleans__ClusterId</c>, ...)
/// for the <c>Cubby:*</c> ones they stand for. They are applied before the <c>Cubby</c> section is bound, so a
/// <c>Cubby:*</c> value that is set wins; each default stays on <see cref="SiloOptions"/>.
/// </summary>
internal static class OrleansSettings
{
    /// <summary>The section Orleans itself configures a silo from (<c>UseOrleans</c>).</summary>
    private const string SectionName = "Orleans";

    /// <summary>Orleans' ADO.NET clustering provider, which Cubby's <see cref="ClusteringMode.Postgres"/> is.</summary>
    private const string AdoNetProvider = "AdoNet";

    /// <summary>Orleans' development clustering provider, which Cubby's <see cref="ClusteringMode.Development"/> is.</summary>
    private const string DevelopmentProvider = "Development";

    private const string Clustering = SectionName + ":Clustering";
    private const string Endpoints = SectionName + ":Endpoints";

    /// <summary>
    /// Sets on <paramref name="options"/> what the <c>Orleans</c> section of <paramref name="configuration"/> says.
    /// </summary>
    /// <param name="options">Options not yet bound from the <c>Cubby</c> section.</param>
    /// <param name="configuration">The host's configuration.</param>
    /// <exception cref="OptionsValidationException">An <c>Orleans:*</c> setting Cubby cannot run with; the message names it.</exception>
    public static void ApplyTo(SiloOptions options, IConfiguration configuration)
    {
        var failures = new List<string>();
        var orleans = configuration.GetSection(SectionName);
        if (Value(orleans, "ClusterId") is { } clusterId)
        {
            options.ClusterId = clusterId;
        }

        if (Value(orleans, "ServiceId") is { } serviceId)
        {
            options.Clustering.ServiceId = serviceId;
        }

        var endpoints = orleans.GetSection("Endpoints");
        if (Port(endpoints, "SiloPort", failures) is { } siloPort)
        {
            options.Clustering.SiloPort = siloPort;
        }

        if (Port(endpoints, "GatewayPort", failures) is { } gatewayPort)
        {
            options.Clustering.GatewayPort = gatewayPort;
        }

        if (Value(endpoints, "AdvertisedIPAddress") is { } advertised)
        {
            options.AdvertisedHost = advertised;
        }

        ApplyClustering(options.Clustering, configuration, failures);

        if (failures.Count > 0)
        {
            throw new OptionsValidationException(Options.DefaultName, typeof(SiloOptions), failures);
        }
    }

    private static void ApplyClustering(ClusteringOptions options, IConfiguration configuration, List<string> failures)
    {
        var section = configuration.GetSection(Clustering);
        if (Value(section, "ProviderType") is not { } provider)
        {
            return;
        }

        var cubby = configuration.GetSection($"{SiloOptions.SectionName}:Clustering");
        var cubbyMode = Enum.TryParse<ClusteringMode>(Value(cubby, nameof(ClusteringOptions.Mode)), ignoreCase: true, out var mode) ? mode : (ClusteringMode?)null;
        switch (provider)
        {
            case AdoNetProvider:
                // Orleans configures its own ADO.NET clustering from this section too, and its check of that fails
                // the start unless Cubby's Postgres mode fills in the invariant and connection string after it.
                if (cubbyMode is { } other && other != ClusteringMode.Postgres)
                {
                    failures.Add($"{Clustering}:ProviderType is {AdoNetProvider}, which {SiloOptions.SectionName}:Clustering:Mode {other} contradicts: Orleans sets up its ADO.NET clustering from it as well. Remove one, or set {SiloOptions.SectionName}:Clustering:Mode to Postgres.");
                    return;
                }

                if (Value(section, "Invariant") is { } invariant && !string.Equals(invariant, OrleansClustering.NpgsqlInvariant, StringComparison.OrdinalIgnoreCase))
                {
                    failures.Add($"{Clustering}:Invariant must be {OrleansClustering.NpgsqlInvariant}: a Cubby silo keeps its membership table in PostgreSQL (was '{invariant}').");
                }

                options.Mode = ClusteringMode.Postgres;
                if (ConnectionString(section, configuration) is { } connectionString)
                {
                    options.ConnectionString = connectionString;
                }
                else if (Value(cubby, nameof(ClusteringOptions.ConnectionString)) is null)
                {
                    failures.Add(MissingConnectionString(section));
                }

                break;
            case DevelopmentProvider:
                options.Mode = ClusteringMode.Development;
                if (Value(section, "PrimarySiloEndpoint") is { } primary)
                {
                    options.PrimaryEndpoint = primary;
                }

                break;
            default:
                failures.Add($"{Clustering}:ProviderType must be {AdoNetProvider} (PostgreSQL) or {DevelopmentProvider}, the clusterings a Cubby silo runs on (was '{provider}').");
                break;
        }
    }

    /// <summary>
    /// The connection string Orleans' ADO.NET provider would take, else the <c>ConnectionStrings</c> entry Aspire names in
    /// <c>Orleans:Clustering:ServiceKey</c>; null when none is found.
    /// </summary>
    private static string? ConnectionString(IConfigurationSection section, IConfiguration configuration) =>
        Value(section, "ConnectionString")
        ?? ConnectionNames(section).Select(named => Value(configuration.GetSection("ConnectionStrings"), named.Name)).FirstOrDefault(static value => value is not null);

    /// <summary>What to set when <see cref="ConnectionString"/> found none.</summary>
    private static string MissingConnectionString(IConfigurationSection section) =>
        ConnectionNames(section).FirstOrDefault() is ({ } key, { } name)
            ? $"ConnectionStrings:{name} must be set: {Clustering}:{key} names it as the database of the {AdoNetProvider} clustering ({Clustering}:ProviderType)."
            : $"{Clustering}:ConnectionString is required when {Clustering}:ProviderType is {AdoNetProvider} (or {Clustering}:ConnectionName or {Clustering}:ServiceKey naming a ConnectionStrings entry).";

    private static IEnumerable<(string Key, string Name)> ConnectionNames(IConfigurationSection section) =>
        ((string[])["ConnectionName", "ServiceKey"]).Select(key => (Key: key, Name: Value(section, key))).Where(static named => named.Name is not null).Select(static named => (named.Key, named.Name!));

    private static int? Port(IConfigurationSection endpoints, string key, List<string> failures)
    {
        if (Value(endpoints, key) is not { } text)
        {
            return null;
        }

        if (int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var port) && port <= 65535)
        {
            return port;
        }

        failures.Add($"{Endpoints}:{key} must be between 0 and 65535 (was '{text}').");
        return null;
    }

    private static string? Value(IConfigurationSection section, string key) => section[key] is { Length: > 0 } value ? value : null;
}
