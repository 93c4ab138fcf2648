using Cubby.Sharding;

namespace Cubby.Client.Filling;

/// <summary>
/// One factory run per missing key across the cluster, the caller's side. The key's shard grants one caller, in any
/// process, the lease to fill the key (<see cref="IShardGrain.Fill"/>); the others wait for the lease to end
/// (<see cref="IShardGrain.AwaitFill"/>), answered the moment the filler's write lands, and read what it wrote. The
/// filler renews its lease while its factory runs and gives it up when the factory fails or is cancelled, so the next
/// waiter fills at once; a filler that stops without a word holds the others for at most the lease
/// (<see cref="CubbyClientOptions.FillLease"/>). Design: <c>docs/hybrid-cache.md</c>.
/// </summary>
internal static class ClusterFill
{
    /// <summary>
    /// Returns what another caller stored for <paramref name="key"/> once <paramref name="accept"/> takes it, or, holding
    /// the lease, the value of <paramref name="create"/> after <paramref name="store"/> wrote it.
    /// </summary>
    /// <param name="client">The client.</param>
    /// <param name="key">The key.</param>
    /// <param name="accept">Whether an entry found (its value and flags) is usable (one whose tags moved on is not), and its value.</param>
    /// <param name="create">The factory.</param>
    /// <param name="store">Writes the created value; the filler's waiters wake when it lands.</param>
    /// <param name="present">Whether the key holds an entry the caller already found unusable.</param>
    /// <param name="cancellationToken">Stops the waits and is given to the factory.</param>
    public static async ValueTask<T> RunAsync<T>(
        CubbyClient client,
        string key,
        Func<byte[], CacheEntryFlags, CancellationToken, ValueTask<(bool Accepted, T Value)>> accept,
        Func<CancellationToken, ValueTask<T>> create,
        Func<T, CancellationToken, ValueTask> store,
        bool present,
        CancellationToken cancellationToken)
    {
        var owner = Guid.NewGuid();
        var ignorePresent = present;
        var waited = false;
        while (true)
        {
            var (status, found, flags) = await client.FillAsync(key, owner, ignorePresent, cancellationToken).ConfigureAwait(false);
            switch (status)
            {
                case FillStatus.Found:
                    var (accepted, value) = await accept(found!, flags, cancellationToken).ConfigureAwait(false);
                    if (accepted)
                    {
                        client.Fills.RemoteHit();
                        return value;
                    }

                    ignorePresent = true;
                    break;
                case FillStatus.Busy:
                    if (!waited)
                    {
                        waited = true;
                        client.Fills.JoinedWait();
                    }

                    await client.AwaitFillAsync(key, cancellationToken).ConfigureAwait(false);
                    ignorePresent = false;
                    break;
                default:
                    client.Fills.Miss();
                    return await FillAsync(client, key, owner, create, store, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    private static async ValueTask<T> FillAsync<T>(
        CubbyClient client, string key, Guid owner, Func<CancellationToken, ValueTask<T>> create, Func<T, CancellationToken, ValueTask> store, CancellationToken cancellationToken)
    {
        T value;
        using (var renewing = new CancellationTokenSource())
        {
            var renewals = RenewAsync(client, key, owner, renewing.Token);
            client.Fills.FactoryRan();
            try
            {
                value = await create(cancellationToken).ConfigureAwait(false);
            }
            catch
            {
                await renewing.CancelAsync().ConfigureAwait(false);
                await renewals.ConfigureAwait(false);
                await GiveUpAsync(client, key, owner).ConfigureAwait(false);
                throw;
            }

            // Stopped before the write: a renewal landing after it would hold a lease on a key that has its value.
            await renewing.CancelAsync().ConfigureAwait(false);
            await renewals.ConfigureAwait(false);
        }

        try
        {
            await store(value, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            await GiveUpAsync(client, key, owner).ConfigureAwait(false);
            throw;
        }

        return value;
    }

    /// <summary>Renews the lease every third of its length until stopped.</summary>
    private static async Task RenewAsync(CubbyClient client, string key, Guid owner, CancellationToken stop)
    {
        using var timer = new PeriodicTimer(client.FillLease / 3);
        try
        {
            while (await timer.WaitForNextTickAsync(stop).ConfigureAwait(false))
            {
                try
                {
                    await client.FillAsync(key, owner, ignorePresent: true, stop).ConfigureAwait(false);
                }
                catch (Exception exception) when (exception is not OperationCanceledException and not OutOfMemoryException)
                {
                    // Tried again at the next tick; meanwhile the lease may run out and a waiter fill too.
                }
            }
        }
        catch (OperationCanceledException)
        {
            // Stopped.
        }
    }

    /// <summary>Gives the lease up for the next waiter; a failure leaves it to run out.</summary>
    private static async Task GiveUpAsync(CubbyClient client, string key, Guid owner)
    {
        try
        {
            await client.GiveUpFillAsync(key, owner).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            // The lease runs out by itself.
        }
    }
}
