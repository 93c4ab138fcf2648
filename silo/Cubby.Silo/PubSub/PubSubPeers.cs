using System.Collections.Concurrent;
using Cubby.Diagnostics;
using Cubby.Grains.Reports;
using Orleans.Runtime.Services;

namespace Cubby.Silo.PubSub;

/// <summary>
/// The <see cref="IPubSubService"/> of every other active Cubby silo. A silo hosting shards with <c>AddCubby()</c> alone
/// (a team's own Orleans silo) has no RESP door and so no subscribers, and is never asked: whether a silo has a door
/// is asked once, through the grain layer's <see cref="ShardSilos"/>, and remembered for that silo's life.
/// </summary>
internal sealed partial class PubSubPeers(IServiceProvider services, ShardSilos shardSilos, ILogger<PubSubPeers> logger)
    : GrainServiceClient<IPubSubService>(services)
{
    /// <summary>How long a publish or a PUBSUB query waits for a silo before counting it as having nobody.</summary>
    public static readonly TimeSpan PeerTimeout = TimeSpan.FromSeconds(2);

    private readonly ConcurrentDictionary<SiloAddress, bool> _hasDoor = new();

    /// <summary>The other active silos with a RESP door; completes at once unless a silo not seen before must be asked.</summary>
    public ValueTask<SiloAddress[]> OthersAsync()
    {
        var others = shardSilos.All().Where(silo => !silo.Equals(shardSilos.Self)).ToArray();
        if (others.Any(silo => !_hasDoor.ContainsKey(silo)))
        {
            return new ValueTask<SiloAddress[]>(AskUnknownAsync(others));
        }

        return ValueTask.FromResult(Array.FindAll(others, silo => _hasDoor[silo]));
    }

    /// <summary>
    /// Asks each of <paramref name="silos"/> with <paramref name="ask"/>, together; a silo that fails or does not answer
    /// within <see cref="PeerTimeout"/> gives <paramref name="none"/>, and is logged.
    /// </summary>
    public Task<T[]> AskAsync<T>(SiloAddress[] silos, Func<IPubSubService, Task<T>> ask, T none) =>
        Task.WhenAll(silos.Select(async silo =>
        {
            try
            {
                return await ask(GetGrainService(silo)).WaitAsync(PeerTimeout).ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                Log.PeerUnreachable(logger, exception, silo);
                return none;
            }
        }));

    private async Task<SiloAddress[]> AskUnknownAsync(SiloAddress[] others)
    {
        foreach (var gone in _hasDoor.Keys.Except(others))
        {
            _hasDoor.TryRemove(gone, out _);
        }

        await Task.WhenAll(others.Where(silo => !_hasDoor.ContainsKey(silo)).Select(async silo =>
        {
            try
            {
                var card = await shardSilos.DescribeAsync(silo).WaitAsync(PeerTimeout).ConfigureAwait(false);
                _hasDoor[silo] = card.RespEndpoint.Length > 0;
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                // Asked again next time; until then it gets what is published, in case it has subscribers.
                Log.PeerUnreachable(logger, exception, silo);
            }
        })).ConfigureAwait(false);
        return Array.FindAll(others, silo => _hasDoor.GetValueOrDefault(silo, true));
    }

    private static partial class Log
    {
        [LoggerMessage(LogEvents.PubSubPeerUnreachable, LogLevel.Warning, "Pub/sub could not reach silo {Silo}: its subscribers miss this message or are left out of this count")]
        public static partial void PeerUnreachable(ILogger logger, Exception exception, SiloAddress silo);
    }
}
