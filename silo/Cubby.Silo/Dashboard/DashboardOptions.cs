namespace Cubby.Silo.Dashboard;

/// <summary>
/// The Orleans dashboard at <c>/dashboard</c>, Cubby's cache page at <c>/dashboard/cache</c> and the metrics at
/// <c>/metrics</c>: the <c>Cubby:Dashboard</c> configuration section.
/// </summary>
public sealed class DashboardOptions
{
    /// <summary>
    /// Serves the Orleans dashboard and the cache page on the HTTP port. Off by default: the Orleans dashboard collects
    /// the silo's statistics and metrics every second whether anyone looks or not (an idle silo uses about 1.7 % of a
    /// core with it and 0.9 % without), and its pages show key names and a live log stream. <c>/metrics</c> is served
    /// either way.
    /// </summary>
    public bool Enabled { get; set; }

    /// <summary>
    /// When set, the dashboards (and <c>/metrics</c> with <see cref="ProtectMetrics"/>) ask for HTTP Basic
    /// authentication with this password and any user name. Basic sends it readable: serve it over TLS (a reverse proxy).
    /// </summary>
    public string? Password { get; set; }

    /// <summary>
    /// The name of an ASP.NET Core authorization policy the host application registered (with its own authentication):
    /// the dashboards (and <c>/metrics</c> with <see cref="ProtectMetrics"/>) require it. Use this or
    /// <see cref="Password"/>, not both.
    /// </summary>
    public string? AuthorizationPolicy { get; set; }

    /// <summary>
    /// Also protect <c>/metrics</c>. Off by default, since scrapers usually reach metrics on a private network; a
    /// Prometheus job can send Basic credentials (<c>basic_auth</c>) when it is on.
    /// </summary>
    public bool ProtectMetrics { get; set; }
}
