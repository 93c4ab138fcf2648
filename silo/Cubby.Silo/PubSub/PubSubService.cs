using Cubby.Silo.Hosting;
using Orleans.Runtime.Services;

namespace Cubby.Silo.PubSub;

/// <summary>Answers <see cref="IPubSubService"/> from this silo's <see cref="PubSubHub"/>.</summary>
internal sealed class PubSubService(GrainId id, global::Orleans.Runtime.Silo silo, ILoggerFactory loggers, IServiceProvider services)
    : GrainService(id, silo, loggers), IPubSubService
{
    private PubSubHub Hub => services.GetRequiredService<SiloRuntime>().PubSub;

    public Task<int> Publish(byte[] channel, byte[] payload) => Task.FromResult(Hub.Publish(channel, payload));

    public Task<byte[][]> Channels(byte[]? pattern) => Task.FromResult(Hub.Channels(pattern));

    public Task<long[]> SubscriberCounts(byte[][] channels) => Task.FromResult(Hub.SubscriberCounts(channels));

    public Task<byte[][]> Patterns() => Task.FromResult(Hub.Patterns());
}
