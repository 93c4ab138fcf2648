using System.Buffers.Text;
using System.Globalization;
using System.Text;
using Cubby.Client.NearCaching;

namespace Cubby.Client.Hybrid;

/// <summary>
/// Tags as epochs. Each tag has a key in the cluster, <c>__cubby:tag:{tag}</c> (and <c>"*"</c> one for every entry),
/// holding a random number: its epoch. An entry stores the epochs of its tags as they were when it was written
/// (<see cref="HybridPayload"/>), and is a miss once any of them moved on. Removing a tag writes it a new epoch: one write,
/// whatever the number of entries, and the near caches of every instance holding the old epoch drop it before the
/// write is answered, so each instance's next check reads the new one. A tag key is an ordinary entry: should it be
/// evicted, its entries read as misses (their epoch is no longer there), never as hits again, since a new epoch is a
/// new random number.
/// </summary>
internal sealed class TagEpochs(CubbyClient client)
{
    /// <summary>The prefix of the keys that hold tags' epochs.</summary>
    public const string KeyPrefix = "__cubby:tag:";

    /// <summary>The tag that every entry carries: removing it removes every entry.</summary>
    public const string All = "*";

    /// <summary>The key of <c>"*"</c>'s epoch.</summary>
    public static readonly string AllKey = KeyOf(All);

    public static string KeyOf(string tag) => KeyPrefix + tag;

    /// <summary>The epoch of <paramref name="tagKey"/> when this process keeps it, without a call, and the entry it is in.</summary>
    public bool TryGetKept(string tagKey, out long epoch, out NearCacheEntry entry)
    {
        epoch = 0;
        return client.TryGetKept(tagKey, out entry) && TryParse(entry.Value, out epoch);
    }

    /// <summary>Whether an epoch's entry that <see cref="TryGetKept"/> gave still holds: nothing changed the tag since.</summary>
    public bool StillHolds(NearCacheEntry entry) => client.IsServable(entry);

    /// <summary>The epoch of <paramref name="tagKey"/>, or 0 when it has none (never written, or evicted).</summary>
    public async ValueTask<long> CurrentAsync(string tagKey, CancellationToken cancellationToken)
    {
        if (TryGetKept(tagKey, out var kept, out _))
        {
            return kept;
        }

        var bytes = await client.ReadAsync(tagKey, keep: true, cancellationToken).ConfigureAwait(false);
        return bytes is not null && TryParse(bytes, out var epoch) ? epoch : 0;
    }

    /// <summary>The epoch of <paramref name="tagKey"/>, giving it one first when it has none.</summary>
    public async ValueTask<long> EnsureAsync(string tagKey, CancellationToken cancellationToken)
    {
        var epoch = await CurrentAsync(tagKey, cancellationToken).ConfigureAwait(false);
        if (epoch != 0)
        {
            return epoch;
        }

        // Whoever stores first gives the epoch; the others read it.
        await client.PutIfAbsentAsync(tagKey, Encode(NewEpoch()), cancellationToken).ConfigureAwait(false);
        return await CurrentAsync(tagKey, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Gives every one of <paramref name="tags"/> a new epoch, in one batch.</summary>
    public async ValueTask MoveOnAsync(IReadOnlyList<string> tags, CancellationToken cancellationToken)
    {
        var entries = new KeyValuePair<string, ReadOnlyMemory<byte>>[tags.Count];
        for (var i = 0; i < tags.Count; i++)
        {
            entries[i] = new(KeyOf(tags[i]), Encode(NewEpoch()));
        }

        await client.PutManyAsync(entries, CacheEntryOptions.Never, cancellationToken).ConfigureAwait(false);
    }

    private static long NewEpoch() => Random.Shared.NextInt64(1, long.MaxValue);

    private static byte[] Encode(long epoch) => Encoding.ASCII.GetBytes(epoch.ToString(CultureInfo.InvariantCulture));

    private static bool TryParse(byte[] value, out long epoch) =>
        Utf8Parser.TryParse(value, out epoch, out var consumed) && consumed == value.Length && epoch != 0;
}
