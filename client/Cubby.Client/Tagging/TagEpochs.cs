using System.Buffers;
using System.Buffers.Text;
using System.Globalization;
using System.Text;
using Cubby.Client.NearCaching;

namespace Cubby.Client.Tagging;

/// <summary>
/// Tags as epochs. Each tag has a key in the cluster, <c>__cubby:tag:{tag}</c> (and <c>"*"</c> one for every entry),
/// holding a random number: its epoch. An entry stores the epochs of its tags as they were when it was written
/// (<see cref="TaggedPayload"/>), and is a miss once any of them moved on. Removing a tag writes it a new epoch: one write,
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

    /// <summary>The epochs entries read here were written under, one instance for each header.</summary>
    public WrittenEpochsTable Written { get; } = new();

    /// <summary>The epoch of <paramref name="tagKey"/> when this process keeps it, without a call, and the entry it is in.</summary>
    public bool TryGetKept(string tagKey, out long epoch, out NearCacheEntry entry)
    {
        epoch = 0;
        return client.TryGetKept(tagKey, out entry) && TryParse(entry.Value, out epoch);
    }

    /// <summary>Where the near cache's count of dropped tag keys, shards and links stands (<see cref="NearCaching.NearCache.TagChanges"/>).</summary>
    public long Changes => client.TagChanges;

    /// <summary>Whether nothing was dropped since <see cref="Changes"/> was <paramref name="changes"/>, and <paramref name="validUntil"/> is ahead.</summary>
    public bool Unchanged(long changes, long validUntil) => client.TagsUnchanged(changes, validUntil);

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

    /// <summary>
    /// Writes the header of an entry carrying <paramref name="tags"/> (and <c>"*"</c> when <paramref name="everything"/>),
    /// giving each tag that has no epoch yet its first.
    /// </summary>
    public async ValueTask WriteHeaderAsync(IBufferWriter<byte> writer, IReadOnlyList<string> tags, bool everything, CancellationToken cancellationToken)
    {
        var all = everything ? await EnsureAsync(AllKey, cancellationToken).ConfigureAwait(false) : 0;
        var epochs = new (string Tag, long Epoch)[tags.Count];
        for (var i = 0; i < tags.Count; i++)
        {
            epochs[i] = (tags[i], await EnsureAsync(KeyOf(tags[i]), cancellationToken).ConfigureAwait(false));
        }

        TaggedPayload.WriteHeader(writer, all, epochs);
    }

    /// <summary>
    /// Writes the header <see cref="WriteHeaderAsync"/> writes when every epoch it needs is kept here, without a call;
    /// false, writing nothing, when one is not.
    /// </summary>
    public bool TryWriteHeader(IBufferWriter<byte> writer, IReadOnlyList<string> tags, bool everything)
    {
        var all = 0L;
        if (everything && !TryGetKept(AllKey, out all, out _))
        {
            return false;
        }

        var epochs = tags.Count == 0 ? [] : new (string Tag, long Epoch)[tags.Count];
        for (var i = 0; i < tags.Count; i++)
        {
            if (!TryGetKept(KeyOf(tags[i]), out var epoch, out _))
            {
                return false;
            }

            epochs[i] = (tags[i], epoch);
        }

        TaggedPayload.WriteHeader(writer, all, epochs);
        return true;
    }

    /// <summary>
    /// The distinct tags of <paramref name="tags"/>, in order; <c>"*"</c> is refused unless <paramref name="everything"/>
    /// allows it.
    /// </summary>
    /// <exception cref="ArgumentException">A tag is null or empty, or is <c>"*"</c> where that is not allowed.</exception>
    public static List<string> Distinct(IEnumerable<string> tags, bool everything, string parameter)
    {
        var list = new List<string>();
        foreach (var tag in tags)
        {
            if (string.IsNullOrEmpty(tag))
            {
                throw new ArgumentException("A tag must not be null or empty.", parameter);
            }

            if (!everything && tag == All)
            {
                throw new ArgumentException($"'{All}' is HybridCache's tag for all of its entries; an ICubbyClient entry cannot carry it or remove by it.", parameter);
            }

            if (!list.Contains(tag, StringComparer.Ordinal))
            {
                list.Add(tag);
            }
        }

        return list;
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
