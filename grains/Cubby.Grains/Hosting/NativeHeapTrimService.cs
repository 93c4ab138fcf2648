using Cubby.Grains.Storage;
using Microsoft.Extensions.Hosting;

namespace Cubby.Grains.Hosting;

/// <summary>Trims the C heap every <see cref="ShardOptions.NativeHeapTrimInterval"/> while entries live in native memory (<see cref="NativeHeap"/>).</summary>
internal sealed class NativeHeapTrimService(TimeSpan interval, TimeProvider time) : BackgroundService
{
    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        using var timer = new PeriodicTimer(interval, time);
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
