using Aspire.Hosting.ApplicationModel;

namespace Cubby.Aspire.Hosting.Postgres;

/// <summary>
/// A throwaway PostgreSQL server run from the machine's own binaries (Debian's <c>postgresql</c> package), with no
/// container: a new cluster in a temporary folder, deleted when the resource stops. For development and tests only.
/// </summary>
/// <param name="name">The resource's name, also the name of its connection string.</param>
/// <param name="password">The password of <see cref="UserName"/>.</param>
public sealed class LocalPostgresResource(string name, ParameterResource password)
    : ExecutableResource(name, "bash", AppContext.BaseDirectory), IResourceWithConnectionString
{
    /// <summary>The name of the endpoint PostgreSQL listens on.</summary>
    public const string EndpointName = "tcp";

    /// <summary>The role the connection string logs in as: the cluster's superuser.</summary>
    public const string UserName = "postgres";

    /// <summary>The database created at start, which the connection string names.</summary>
    public const string DatabaseName = "cubby";

    /// <summary>The password of <see cref="UserName"/>, generated for each run unless the AppHost sets it.</summary>
    public ParameterResource Password { get; } = password;

    /// <summary>Where PostgreSQL listens: a loopback port the AppHost picks.</summary>
    public EndpointReference Endpoint => field ??= new(this, EndpointName);

    /// <summary>An Npgsql connection string to <see cref="DatabaseName"/>.</summary>
    public ReferenceExpression ConnectionStringExpression => ReferenceExpression.Create(
        $"Host={Endpoint.Property(EndpointProperty.IPV4Host)};Port={Endpoint.Property(EndpointProperty.Port)};Username={UserName};Password={Password};Database={DatabaseName}");
}
