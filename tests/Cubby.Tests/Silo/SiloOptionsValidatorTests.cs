using Cubby.Silo.Clustering;
using Cubby.Silo.Hosting;

namespace Cubby.Tests.Silo;

/// <summary>Bad settings fail the start with a message that names the setting.</summary>
public sealed class SiloOptionsValidatorTests
{
    public static TheoryData<string, Action<SiloOptions>> BadSettings() => new()
    {
        { "Cubby:RespPort", options => options.RespPort = 70_000 },
        { "Cubby:SlotCount", options => options.SlotCount = 0 },
        { "Cubby:SocketThreads", options => options.SocketThreads = -1 },
        { "Cubby:Clustering:ConnectionString", options => options.Clustering.Mode = ClusteringMode.Postgres },
        { "Cubby:Clustering:PrimaryEndpoint", options => (options.Clustering.Mode, options.Clustering.PrimaryEndpoint) = (ClusteringMode.Development, "no-port") },
        { "Cubby:Clustering:PrimaryEndpoint", options => options.Clustering.PrimaryEndpoint = "127.0.0.1:11111" },
        { "Cubby:Clustering:SiloPort", options => options.Clustering.SiloPort = 70_000 },
        { "Cubby:Clustering:GatewayPort", options => options.Clustering.GatewayPort = options.HttpPort },
        { "Cubby:Clustering:ProbeTimeout", options => options.Clustering.ProbeTimeout = TimeSpan.Zero },
        { "Cubby:Clustering:CallTimeout", options => options.Clustering.CallTimeout = TimeSpan.FromSeconds(-1) },
        { "Cubby:NativeHeapTrimInterval", options => options.NativeHeapTrimInterval = TimeSpan.FromSeconds(-1) },
        { "Cubby:Replicas", options => options.Replicas = 3 },
    };

    [Fact]
    public void The_defaults_are_valid() => Assert.True(new SiloOptionsValidator(TimeProvider.System).Validate(null, new SiloOptions()).Succeeded);

    [Theory]
    [MemberData(nameof(BadSettings))]
    public void A_bad_setting_fails_with_its_name(string setting, Action<SiloOptions> spoil)
    {
        var options = new SiloOptions();
        spoil(options);

        var result = new SiloOptionsValidator(TimeProvider.System).Validate(null, options);

        Assert.True(result.Failed);
        var failure = Assert.Single(result.Failures!);
        Assert.StartsWith(setting + " ", failure, StringComparison.Ordinal);
    }
}
