namespace Cubby.Silo.Dashboard;

/// <summary>The dashboard at <c>/dashboard</c> and the metrics at <c>/metrics</c>: the <c>Cubby:Dashboard</c> configuration section.</summary>
public sealed class DashboardOptions
{
    /// <summary>Serves <c>/dashboard</c> and its API on the HTTP port. <c>/metrics</c> is served either way.</summary>
    public bool Enabled { get; set; } = true;

    /// <summary>
    /// When set, the dashboard and its API (and <c>/metrics</c> with <see cref="ProtectMetrics"/>) ask for HTTP Basic
    /// authentication with this password and any user name. Basic sends it readable: serve it over TLS (a reverse proxy).
    /// </summary>
    public string? Password { get; set; }

    /// <summary>
    /// Also require <see cref="Password"/> for <c>/metrics</c>. Off by default, since scrapers usually reach metrics on a
    /// private network; a Prometheus job can send Basic credentials (<c>basic_auth</c>) when it is on.
    /// </summary>
    public bool ProtectMetrics { get; set; }
}
