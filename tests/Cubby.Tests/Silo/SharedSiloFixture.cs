using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>One silo on the real clock shared by every test of a class; tests isolate themselves with unique keys.</summary>
public sealed class SharedSiloFixture : IAsyncLifetime
{
    private TestSilo? _silo;

    public TestSilo Silo => _silo ?? throw new InvalidOperationException("The silo has not started.");

    public async Task InitializeAsync() => _silo = await TestSilo.StartAsync();

    public async Task DisposeAsync()
    {
        if (_silo is not null)
        {
            await _silo.DisposeAsync();
        }
    }
}
