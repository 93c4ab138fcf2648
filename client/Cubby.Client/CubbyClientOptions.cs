using System.Text.Json;
using Cubby.Resp;

namespace Cubby.Client;

/// <summary>How the client reaches the cluster; bound from the <c>Cubby:Client</c> configuration section and validated at start.</summary>
public sealed class CubbyClientOptions
{
    /// <summary>The configuration section these options bind from.</summary>
    public const string SectionName = "Cubby:Client";

    /// <summary>
    /// The connection string read besides the section (<c>ConnectionStrings:cubby</c>), as orchestrators hand one to an
    /// app: silos as <c>host:port</c> separated by commas, optionally with <c>password=...</c>. Its endpoints are
    /// added to <see cref="Endpoints"/>; its password is used unless <see cref="Password"/> is set.
    /// </summary>
    public const string ConnectionStringName = "cubby";

    /// <summary>
    /// Silos' RESP endpoints as <c>host:port</c>, in order of preference. Every silo serves every key: each call goes to
    /// the first endpoint whose connection is not known to be down, and moves on to the next when its connection fails.
    /// </summary>
    public IList<string> Endpoints { get; } = new List<string>();

    /// <summary>The silos' password (<c>Cubby:Password</c> on the silo), or null when they need none.</summary>
    public string? Password { get; set; }

    /// <summary>The user the password authenticates: <c>default</c> for clients; silos use their own on silo links.</summary>
    internal string UserName { get; set; } = "default";

    /// <summary>How long connecting (and waiting for a reconnect) may take before a call fails.</summary>
    public TimeSpan ConnectTimeout { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>How long a call may wait for its reply before it fails with a <see cref="TimeoutException"/>.</summary>
    public TimeSpan OperationTimeout { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>The first delay before reconnecting after a lost connection; it doubles up to <see cref="ReconnectMaxDelay"/>.</summary>
    public TimeSpan ReconnectMinDelay { get; set; } = TimeSpan.FromMilliseconds(100);

    /// <summary>The longest delay between reconnect attempts.</summary>
    public TimeSpan ReconnectMaxDelay { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>The longest key accepted, in UTF-8 bytes; match the silos' <c>Cubby:MaxKeyBytes</c>.</summary>
    public int MaxKeyBytes { get; set; } = 16 * 1024;

    /// <summary>The largest value accepted, in bytes; match the silos' <c>Cubby:MaxValueBytes</c>.</summary>
    public int MaxValueBytes { get; set; } = 16 * 1024 * 1024;

    /// <summary>The protocol spoken to the silos: RESP3 (default) or RESP2.</summary>
    public RespVersion Protocol { get; set; } = RespVersion.Resp3;

    /// <summary>Options for the default System.Text.Json serializer (a source-generated context goes in <see cref="JsonSerializerOptions.TypeInfoResolver"/>).</summary>
    public JsonSerializerOptions? JsonSerializerOptions { get; set; }
}
