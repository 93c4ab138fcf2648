using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Client.DependencyInjection;

/// <summary>Returned by <c>AddCubbyClient</c> to chain more Cubby registrations.</summary>
public interface ICubbyClientBuilder
{
    /// <summary>The service collection the client was added to.</summary>
    IServiceCollection Services { get; }
}

/// <summary>The builder <c>AddCubbyClient</c> returns.</summary>
internal sealed record CubbyClientBuilder(IServiceCollection Services) : ICubbyClientBuilder;
