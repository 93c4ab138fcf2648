namespace Cubby.AppHost.Resources;

/// <summary>One silo: RESP, HTTP and its Orleans silo and gateway ports on free loopback ports, health at <c>/health</c>.</summary>
internal sealed class SiloResource(string name, string assemblyPath, DevContext context) : DotnetResource(name, assemblyPath, context)
{
    public const string Host = "127.0.0.1";

    public int RespPort { get; } = FreePort.Next();

    public int HttpPort { get; } = FreePort.Next();

    /// <summary>The Orleans silo port, which the other silos join a Development cluster at.</summary>
    public int SiloPort { get; } = FreePort.Next();

    public int GatewayPort { get; } = FreePort.Next();

    public string RespEndpoint => $"{Host}:{RespPort}";

    public string SiloEndpoint => $"{Host}:{SiloPort}";

    public string GatewayEndpoint => $"{Host}:{GatewayPort}";

    public override StopStage StopStage => StopStage.Cluster;

    protected override Uri HealthUrl => new($"http://{Host}:{HttpPort}/health");

    protected override IEnumerable<string> Arguments =>
        ["--Cubby:Host", Host, "--Cubby:RespPort", $"{RespPort}", "--Cubby:HttpPort", $"{HttpPort}",
            "--Cubby:Clustering:SiloPort", $"{SiloPort}", "--Cubby:Clustering:GatewayPort", $"{GatewayPort}"];

    public override string Describe() =>
        $"pid={string.Join(',', ProcessIds)} resp={RespEndpoint} silo={SiloEndpoint} gateway={GatewayEndpoint} http=http://{Host}:{HttpPort} dashboard=http://{Host}:{HttpPort}/dashboard/ cache=http://{Host}:{HttpPort}/dashboard/cache/";
}
