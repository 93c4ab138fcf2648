using System.Buffers;
using Cubby.Client.NearCaching;
using Cubby.Client.Tagging;

namespace Cubby.Client;

/// <summary>
/// Tags on <see cref="ICubbyClient"/> entries, as epochs (<see cref="TagEpochs"/>): an entry written with tags stores
/// their epochs in front of its value (<see cref="CacheEntryFlags.Tagged"/>), and reads of it return the value behind
/// them while every epoch holds, nothing once one moved on.
/// </summary>
internal sealed partial class CubbyClient
{
    /// <summary>The tags' epochs, shared with Cubby's HybridCache over this client.</summary>
    internal TagEpochs Epochs { get; }

    public ValueTask RemoveByTagAsync(string tag, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(tag);
        return RemoveByTagAsync([tag], cancellationToken);
    }

    public async ValueTask RemoveByTagAsync(IEnumerable<string> tags, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(tags);
        var distinct = TagEpochs.Distinct(tags, everything: false, nameof(tags));
        if (distinct.Count > 0)
        {
            await Epochs.MoveOnAsync(distinct, cancellationToken).ConfigureAwait(false);
            Fills.TagsRemoved(distinct.Count);
        }
    }

    /// <summary>The distinct tags <paramref name="options"/> gives an entry, or null for none.</summary>
    /// <exception cref="ArgumentException">A tag is null, empty or <c>"*"</c>, or the caller set <see cref="CacheEntryFlags.Tagged"/> itself.</exception>
    private static List<string>? TagsOf(CacheEntryOptions options)
    {
        if ((options.Flags & CacheEntryFlags.Tagged) != 0)
        {
            throw new ArgumentException("CacheEntryFlags.Tagged is set by the client for entries written with Tags; set CacheEntryOptions.Tags instead.", nameof(options));
        }

        return options.Tags is { Count: > 0 } tags ? TagEpochs.Distinct(tags, everything: false, nameof(options)) : null;
    }

    /// <summary>The header that puts <paramref name="tags"/>' epochs in front of a value.</summary>
    private async ValueTask<byte[]> TagHeaderAsync(List<string> tags, CancellationToken cancellationToken)
    {
        var writer = new ArrayBufferWriter<byte>();
        await Epochs.WriteHeaderAsync(writer, tags, everything: false, cancellationToken).ConfigureAwait(false);
        return writer.WrittenSpan.ToArray();
    }

    /// <summary><paramref name="value"/> behind <paramref name="header"/>, checked against the value limit as stored.</summary>
    private byte[] Tagged(byte[] header, ReadOnlySpan<byte> value, string parameter)
    {
        CheckValue(header.Length + (long)value.Length, parameter);
        var tagged = new byte[header.Length + value.Length];
        header.CopyTo(tagged, 0);
        value.CopyTo(tagged.AsSpan(header.Length));
        return tagged;
    }

    /// <summary>
    /// What a reader gets of a stored value with <paramref name="flags"/>: the value itself, or, for a tagged one, the
    /// value behind its header while every tag's epoch holds, else null. A near cache's <paramref name="kept"/> entry
    /// keeps what the header said, so its next hit checks the epochs without parsing or copying again.
    /// </summary>
    private ValueTask<byte[]?> UntaggedAsync(string key, byte[] stored, CacheEntryFlags flags, NearCacheEntry? kept, CancellationToken cancellationToken)
    {
        if ((flags & CacheEntryFlags.Tagged) == 0)
        {
            return new ValueTask<byte[]?>(stored);
        }

        if (kept?.Decoded is not TaggedValue tagged)
        {
            tagged = TaggedValue.Of(stored, Epochs.Written) ?? throw new CubbyException($"The value of '{key}' is flagged Tagged but does not start with a tag header.");
            if (kept is not null)
            {
                kept.Decoded = tagged;
            }
        }

        return tagged.Epochs.IsCurrentKept(Epochs) switch
        {
            true => new ValueTask<byte[]?>(tagged.Value),
            false => default,
            null => AskedAsync(tagged, cancellationToken),
        };

        async ValueTask<byte[]?> AskedAsync(TaggedValue tagged, CancellationToken cancellationToken) =>
            await tagged.Epochs.IsCurrentAsync(Epochs, cancellationToken).ConfigureAwait(false) ? tagged.Value : null;
    }
}
