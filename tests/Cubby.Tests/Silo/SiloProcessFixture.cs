using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>One silo process shared by a test class; each test uses keys of its own.</summary>
public sealed class SiloProcessFixture : IAsyncLifetime
{
    private SiloProcess? _silo;

    public SiloProcess Silo => _silo ?? throw new InvalidOperationException("The silo process has not started.");

    public async Task InitializeAsync() => _silo = await SiloProcess.StartAsync();

    public async Task DisposeAsync()
    {
        if (_silo is null)
        {
            return;
        }

        try
        {
            await _silo.StopAsync(TimeSpan.FromSeconds(30));
        }
        finally
        {
            _silo.Dispose();
        }
    }
}
