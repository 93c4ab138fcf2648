using Cubby.Grains.Storage;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace Cubby.Silo.Hosting;

/// <summary>Trims the C heap every <see cref="SiloOptions.NativeHeapTrimInterval"/> while entries live in native memory (<see cref="NativeHeap"/>).</summary>
internal sealed class NativeHeapTrimService(IOptions<SiloOptions> options, TimeProvider time) : BackgroundService
{
    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        using var timer = new PeriodicTimer(options.Value.NativeHeapTrimInterval, time);
        try
        {
            while (await timer.WaitForNextTickAsync(stoppingToken).ConfigureAwait(false) && NativeHeap.TryTrim())
            {
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
        }
    }
}
