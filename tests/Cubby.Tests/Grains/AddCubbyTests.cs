using Cubby.Grains;
using Cubby.Grains.Hosting;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using Orleans.Hosting;

namespace Cubby.Tests.Grains;

/// <summary><c>siloBuilder.AddCubby()</c> in a team's own Orleans silo: the shards' settings from the <c>Cubby</c> section.</summary>
public sealed class AddCubbyTests
{
    [Fact]
    public void AddCubby_binds_the_shard_settings_from_the_Cubby_section_and_code_changes_win()
    {
        var builder = Host.CreateApplicationBuilder();
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Cubby:MaxMemoryBytes"] = "33554432",
            ["Cubby:EvictionSamples"] = "9",
        });
        builder.UseOrleans(silo => silo.UseLocalhostClustering().AddCubby(options => options.MaxKeyBytes = 100));
        using var host = builder.Build();

        var catalog = host.Services.GetRequiredService<ShardCatalog>();
        Assert.Equal(32L * 1024 * 1024, catalog.Budget.Limit);
        Assert.Equal(9, catalog.Options.EvictionSamples);
        Assert.Equal(100, catalog.Options.MaxKeyBytes);
    }

    [Theory]
    [InlineData("Cubby:MaxMemoryBytes", "-1")]
    [InlineData("Cubby:SlotCount", "0")]
    [InlineData("Cubby:ActiveExpiryBudget", "00:00:01")]
    [InlineData("Cubby:KeptForReuseBytes", "-5")]
    public void AddCubby_refuses_a_bad_setting_by_its_name(string key, string value)
    {
        var builder = Host.CreateApplicationBuilder();
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?> { [key] = value });

        var failure = Assert.Throws<OptionsValidationException>(() => builder.UseOrleans(silo => silo.AddCubby()));

        Assert.Contains(key, failure.Message, StringComparison.Ordinal);
    }
}
