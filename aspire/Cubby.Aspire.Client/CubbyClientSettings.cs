namespace Cubby.Aspire.Client;

/// <summary>
/// What <c>builder.AddCubbyClient(connectionName)</c> sets up besides the client itself, bound from the
/// <c>Aspire:Cubby:Client</c> configuration section and then <c>Aspire:Cubby:Client:{connectionName}</c>.
/// </summary>
/// <remarks>
/// The same section also binds onto <see cref="Cubby.Client.CubbyClientOptions"/> (<c>OperationTimeout</c>,
/// <c>ConnectTimeout</c>, <c>MaxValueBytes</c> and the rest), so everything about the client is set in one place.
/// </remarks>
public sealed class CubbyClientSettings
{
    /// <summary>The configuration section the settings (and the client's options) bind from: <c>Aspire:Cubby:Client</c>.</summary>
    public const string SectionName = "Aspire:Cubby:Client";

    /// <summary>
    /// The Cubby connection string, in either form <see cref="Cubby.Client.CubbyConnectionString"/> reads, such as
    /// <c>Endpoints=10.0.0.5:30000,10.0.0.6:30000;ClusterId=cubby-dev;ServiceId=cubby</c>.
    /// <c>ConnectionStrings:{connectionName}</c>, when set, replaces what the section says.
    /// </summary>
    public string? ConnectionString { get; set; }

    /// <summary>Whether to leave out the health check that calls the cluster.</summary>
    /// <value>The default value is <see langword="false"/>.</value>
    public bool DisableHealthChecks { get; set; }

    /// <summary>
    /// Whether to leave out distributed tracing: the client's calls carrying the caller's trace to the silos, and
    /// Orleans' activity sources in OpenTelemetry's tracing.
    /// </summary>
    /// <value>The default value is <see langword="false"/>.</value>
    public bool DisableTracing { get; set; }

    /// <summary>Whether to leave Orleans' meter (<c>Microsoft.Orleans</c>) out of OpenTelemetry's metrics.</summary>
    /// <value>The default value is <see langword="false"/>.</value>
    public bool DisableMetrics { get; set; }

    /// <summary>
    /// How long the health check waits for the cluster's answer before it reports the check's failure status
    /// (Unhealthy); <see langword="null"/> leaves it to the client's own limits, <c>ConnectTimeout</c> while it
    /// connects and <c>OperationTimeout</c> for the call.
    /// </summary>
    /// <value>The default value is <see langword="null"/>.</value>
    public TimeSpan? HealthCheckTimeout { get; set; }
}
