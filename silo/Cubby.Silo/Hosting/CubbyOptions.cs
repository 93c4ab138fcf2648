using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace Cubby.Silo.Hosting;

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
    public static SiloOptions Register(IServiceCollection services, IConfiguration configuration, Action<SiloOptions>? configure)
    {
        var section = configuration.GetSection(SiloOptions.SectionName);
        var builder = services.AddOptions<SiloOptions>()
            .Configure(options => OrleansSettings.ApplyTo(options, configuration))
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
        OrleansSettings.ApplyTo(options, configuration);
        section.Bind(options);
        configure?.Invoke(options);
        var result = new SiloOptionsValidator(TimeProvider.System).Validate(null, options);
        if (result.Failed)
        {
            throw new OptionsValidationException(Options.DefaultName, typeof(SiloOptions), result.Failures);
        }

        return options;
    }
}
