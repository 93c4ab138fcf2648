using Cubby.Grains;
using Cubby.Grains.Storage;
using Cubby.Silo.Clustering;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using Orleans.Configuration;
using SiloOptions = Cubby.Silo.Hosting.SiloOptions;

namespace Cubby.Silo.Hosting;

/// <summary>Hosts Cubby's shard grains in an Orleans silo: Cubby's own, or one a team already runs.</summary>
public static class CubbySiloBuilderExtensions
{
    /// <summary>The largest Orleans message: a migrating shard travels in one, and shards of 100 MiB and more exist.</summary>
    internal const int MaxMessageBodyBytes = 1 << 30;

    /// <summary>
    /// Adds Cubby's shard grains to this silo, with their settings from the <c>Cubby</c> configuration section
    /// (validated at start): the shards' store, memory budget, expiry and eviction, their placement on their home
    /// silos, their migration with their entries, the distributed grain directory they need, and the silo-wide active
    /// expiry cycle. The silo's clustering and reminder service are the host's own; Cubby's RESP front door is
    /// added by <see cref="SiloHostingExtensions.AddCubbySilo"/>, not here.
    /// </summary>
    /// <param name="silo">The silo builder.</param>
    /// <param name="configure">Changes applied after configuration binding.</param>
    /// <returns>The silo builder.</returns>
    public static ISiloBuilder AddCubby(this ISiloBuilder silo, Action<SiloOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(silo);
        var options = CubbyOptions.Register(silo.Services, silo.Configuration, configure, cubbyClustering: false);
        return silo.AddCubbyGrains(options);
    }

    internal static ISiloBuilder AddCubbyGrains(this ISiloBuilder silo, SiloOptions options)
    {
        silo.AddShardGrains(GrainSettingsOf(options), StoreOf(options));

        // Orleans' default directory lost shards that migrated off a stopping silo (docs/orleans-cluster.md); the
        // distributed one is marked experimental in Orleans 10.
#pragma warning disable ORLEANSEXP003
        silo.AddDistributedGrainDirectory();
#pragma warning restore ORLEANSEXP003
        silo.AddGrainService<SiloReportService>();
        silo.Services.TryAddSingleton<SiloReports>();
        silo.Services.AddHostedService<ExpiryService>();
        if (options.Store == EntryStoreKind.Native && options.NativeHeapTrimInterval > TimeSpan.Zero)
        {
            silo.Services.AddHostedService<NativeHeapTrimService>();
        }

        silo.Configure<SiloMessagingOptions>(messaging =>
        {
            messaging.MaxMessageBodySize = MaxMessageBodyBytes;
            messaging.ResponseTimeout = options.Clustering.CallTimeout;
        });

        // The full sweep is an Orleans reminder: allow the sweep interval even when it is under Orleans' 1-minute floor.
        silo.Configure<ReminderOptions>(reminders =>
            reminders.MinimumReminderPeriod = TimeSpan.FromTicks(Math.Min(reminders.MinimumReminderPeriod.Ticks, options.FullSweepInterval.Ticks)));
        return silo;
    }

    /// <summary>The shards' settings from the silo's.</summary>
    internal static GrainSettings GrainSettingsOf(SiloOptions options) => new()
    {
        SlotCount = options.SlotCount,
        MaxKeyBytes = options.MaxKeyBytes,
        MaxValueBytes = options.MaxValueBytes,
        MaxMemoryBytes = options.EffectiveMaxMemoryBytes,
        KeptForReuseBytes = KeptForReuseBytesOf(options),
        EvictionSamples = options.EvictionSamples,
        ActiveExpiryInterval = options.ActiveExpiryInterval,
        ActiveExpiryBudget = options.ActiveExpiryBudget,
        FullSweepInterval = options.FullSweepInterval,
    };

    /// <summary>
    /// The bytes of freed blocks the stores keep for reuse: 1/64 of the budget (at least 256 KiB, at most 64 MiB, and
    /// never over 1/8 of it), enough for the evict-then-write churn of a full cache. They come out of the budget.
    /// </summary>
    internal static long KeptForReuseBytesOf(SiloOptions options) =>
        Math.Min(Math.Clamp(options.EffectiveMaxMemoryBytes / 64, 256L * 1024, 64L * 1024 * 1024), options.EffectiveMaxMemoryBytes / 8);

    /// <summary>The shards' entry store, from <see cref="SiloOptions.Store"/>. The stores of a silo share their freed blocks.</summary>
    internal static EntryStores StoreOf(SiloOptions options) => new(
        options.Store == EntryStoreKind.Managed ? new ManagedEntryMemory() : new NativeEntryMemory(),
        KeptForReuseBytesOf(options),
        EntryStores.SlabSlackBytesFor(options.EffectiveMaxMemoryBytes));
}

/// <summary>Binds and validates <see cref="SiloOptions"/> once for both the host's services and the Orleans setup that needs them early.</summary>
internal static class CubbyOptions
{
    /// <summary>
    /// Registers the options, bound from the <c>Orleans</c> settings Aspire gives (<see cref="OrleansSettings"/>) and
    /// then the <c>Cubby</c> section, whose values win; returns them, checked.
    /// </summary>
    /// <param name="services">The host's services.</param>
    /// <param name="configuration">The host's configuration.</param>
    /// <param name="configure">Changes applied after binding.</param>
    /// <param name="cubbyClustering">Whether Cubby sets up the clustering (<c>AddCubbySilo</c>) rather than the host (<c>AddCubby</c>).</param>
    public static SiloOptions Register(IServiceCollection services, IConfiguration configuration, Action<SiloOptions>? configure, bool cubbyClustering = true)
    {
        var section = configuration.GetSection(SiloOptions.SectionName);
        var builder = services.AddOptions<SiloOptions>()
            .Configure(options => OrleansSettings.ApplyTo(options, configuration, cubbyClustering))
            .Bind(section);
        if (configure is not null)
        {
            builder.Configure(configure);
        }

        builder.ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<SiloOptions>, SiloOptionsValidator>());
        services.TryAddSingleton(TimeProvider.System);

        // Orleans' endpoints and clustering are set while the host is built, so the options are checked now too.
        var options = new SiloOptions();
        OrleansSettings.ApplyTo(options, configuration, cubbyClustering);
        section.Bind(options);
        configure?.Invoke(options);
        var result = new SiloOptionsValidator().Validate(null, options);
        if (result.Failed)
        {
            throw new OptionsValidationException(Options.DefaultName, typeof(SiloOptions), result.Failures);
        }

        return options;
    }
}
