using System.Net;
using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace Cubby.Silo.Hosting;

/// <summary>The silo's listeners, whose bound ports are known once the server has started (port 0 picks one).</summary>
public sealed class SiloEndpoints
{
    private readonly List<ListenOptions> _resp = [];
    private readonly List<ListenOptions> _http = [];
    private readonly List<ListenOptions> _respTls = [];

    /// <summary>The RESP endpoint clients connect to.</summary>
    public IPEndPoint Resp => First(_resp, "RESP");

    /// <summary>The RESP endpoint that speaks TLS (<c>Cubby:Tls</c>): the RESP endpoint itself, or the second one on <c>Cubby:Tls:Port</c>.</summary>
    public IPEndPoint RespTls => First(_respTls, "TLS RESP");

    /// <summary>The HTTP endpoint serving <c>/health</c>.</summary>
    public IPEndPoint Http => First(_http, "HTTP");

    internal void AddResp(ListenOptions listener) => _resp.Add(listener);

    internal void AddRespTls(ListenOptions listener) => _respTls.Add(listener);

    internal void AddHttp(ListenOptions listener) => _http.Add(listener);

    private static IPEndPoint First(List<ListenOptions> listeners, string kind) =>
        listeners.Count > 0 ? listeners[0].IPEndPoint ?? throw new InvalidOperationException($"The {kind} listener is not an IP endpoint.")
        : throw new InvalidOperationException($"The silo has no {kind} listener yet; read endpoints after the host has started.");
}
