using Cubby.Aspire.Client;
using Cubby.Client;
using Cubby.Client.DependencyInjection;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;

#pragma warning disable IDE0130 // Aspire client integrations live in the hosting namespace, where callers already look for them.
namespace Microsoft.Extensions.Hosting;
#pragma warning restore IDE0130

/// <summary>Registers Cubby's client in an Aspire app, as <c>Aspire.StackExchange.Redis</c> registers Redis's.</summary>
public static class AspireCubbyClientExtensions
{
    /// <summary>The health check's name: one Cubby client per app, so one name.</summary>
    internal const string HealthCheckName = "Cubby";

    private const string RegisteredKey = "Cubby.Aspire.Client.ConnectionName";

    /// <summary>
    /// Registers <see cref="ICubbyClient"/> for the Cubby cluster of the connection string
    /// <c>ConnectionStrings:{connectionName}</c> (what an AppHost's <c>WithReference(cache)</c> hands the app), and
    /// Cubby as the <see cref="IDistributedCache"/> and <see cref="IBufferDistributedCache"/> (replacing one registered
    /// before, such as <c>AddDistributedMemoryCache</c>); with a health check, distributed tracing and Orleans'
    /// metrics unless <see cref="CubbyClientSettings"/> turns them off.
    /// </summary>
    /// <remarks>
    /// <para>
    /// <see cref="CubbyClientSettings"/> binds from <c>Aspire:Cubby:Client</c> and then
    /// <c>Aspire:Cubby:Client:{connectionName}</c>; <c>ConnectionStrings:{connectionName}</c>, when set, replaces their
    /// <see cref="CubbyClientSettings.ConnectionString"/>; <paramref name="configureSettings"/> runs last.
    /// </para>
    /// <para>
    /// The client's <see cref="CubbyClientOptions"/> come, each winning over the ones before, from: their defaults; the
    /// <c>Cubby:Client</c> section and <c>ConnectionStrings:cubby</c>, as <c>services.AddCubbyClient()</c> reads them;
    /// the same <c>Aspire:Cubby:Client</c> and <c>Aspire:Cubby:Client:{connectionName}</c> sections
    /// (<c>OperationTimeout</c>, <c>ConnectTimeout</c>, <c>MaxValueBytes</c> and the rest); the connection string (its
    /// endpoints are added to those listed, its <c>ClusterId</c> and <c>ServiceId</c> replace theirs); and last
    /// <paramref name="configureOptions"/>. A connection string that cannot be read fails this call, naming where it
    /// came from and the item.
    /// </para>
    /// <para>
    /// The health check, named <c>Cubby</c>, asks the cluster where a fixed key's shard lives (one call that reads
    /// nothing) and reports Unhealthy with the failure's message, or when no answer comes within
    /// <see cref="CubbyClientSettings.HealthCheckTimeout"/>. Tracing makes the client's calls carry the caller's trace to
    /// the silos (<c>WithDistributedTracing()</c>) and adds Orleans' activity sources <c>Microsoft.Orleans.Application</c>
    /// and <c>Microsoft.Orleans.Runtime</c> to OpenTelemetry's tracing; metrics add Orleans' meter <c>Microsoft.Orleans</c>.
    /// An exporter (such as the service defaults' OTLP one) is the app's to add.
    /// </para>
    /// <para>
    /// An app has one Cubby client: a second call fails. In a process that already runs Orleans (call this after
    /// registering it), the client uses that runtime, as <c>services.AddCubbyClient()</c> does.
    /// </para>
    /// </remarks>
    /// <param name="builder">The app's builder, whose configuration is read and whose services get the client.</param>
    /// <param name="connectionName">The connection's name in <c>ConnectionStrings</c>, as the AppHost named the resource.</param>
    /// <param name="configureSettings">Changes the settings after they are read from configuration.</param>
    /// <param name="configureOptions">Changes the client's options after configuration and the connection string.</param>
    /// <returns>The client's builder, to chain more Cubby registrations on.</returns>
    /// <exception cref="InvalidOperationException">The connection string cannot be read, or the app has a Cubby client from this method already.</exception>
    public static ICubbyClientBuilder AddCubbyClient(
        this IHostApplicationBuilder builder,
        string connectionName,
        Action<CubbyClientSettings>? configureSettings = null,
        Action<CubbyClientOptions>? configureOptions = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentException.ThrowIfNullOrWhiteSpace(connectionName);
        if (builder.Properties.TryGetValue(RegisteredKey, out var registered))
        {
            throw new InvalidOperationException(
                $"builder.AddCubbyClient(\"{registered}\") was called already; an app has one Cubby client, so chain on the builder that call returned.");
        }

        builder.Properties[RegisteredKey] = connectionName;
        var section = builder.Configuration.GetSection(CubbyClientSettings.SectionName);
        var named = section.GetSection(connectionName);
        var (settings, source) = ReadSettings(builder.Configuration, section, named, connectionName, configureSettings);
        var connectionString = string.IsNullOrWhiteSpace(settings.ConnectionString) ? null : settings.ConnectionString;
        if (connectionString is not null)
        {
            // Read now too, so a connection string that cannot be read fails here rather than when the host starts.
            CubbyConnectionString.ApplyTo(new CubbyClientOptions(), connectionString, source);
        }

        var cubby = builder.Services.AddCubbyClient(options =>
        {
            section.Bind(options);
            named.Bind(options);
            if (connectionString is not null)
            {
                CubbyConnectionString.ApplyTo(options, connectionString, source);
            }

            configureOptions?.Invoke(options);
        });
        cubby.AddCubbyDistributedCache();
        CubbyTelemetry.Add(builder, settings, cubby);
        if (!settings.DisableHealthChecks)
        {
            builder.Services.AddHealthChecks().Add(new HealthCheckRegistration(
                HealthCheckName,
                provider => new CubbyHealthCheck(provider.GetRequiredService<ICubbyClient>(), settings.HealthCheckTimeout),
                failureStatus: null,
                tags: null));
        }

        return cubby;
    }

    /// <summary>The settings, and where their connection string came from (for errors).</summary>
    private static (CubbyClientSettings Settings, string Source) ReadSettings(
        IConfiguration configuration, IConfigurationSection section, IConfigurationSection named, string connectionName, Action<CubbyClientSettings>? configure)
    {
        var settings = new CubbyClientSettings();
        section.Bind(settings);
        named.Bind(settings);
        var source = named[nameof(CubbyClientSettings.ConnectionString)] is not null
            ? $"{named.Path}:{nameof(CubbyClientSettings.ConnectionString)}"
            : $"{section.Path}:{nameof(CubbyClientSettings.ConnectionString)}";
        if (configuration.GetConnectionString(connectionName) is { Length: > 0 } connectionString)
        {
            settings.ConnectionString = connectionString;
            source = $"ConnectionStrings:{connectionName}";
        }

        var read = settings.ConnectionString;
        configure?.Invoke(settings);
        if (!string.Equals(read, settings.ConnectionString, StringComparison.Ordinal))
        {
            source = $"the {nameof(CubbyClientSettings)}.{nameof(CubbyClientSettings.ConnectionString)} set in code";
        }

        return (settings, source);
    }
}
