namespace Cubby.Client.Tagging;

/// <summary>
/// An <see cref="ICubbyClient"/> entry written with tags, as read: its value without the header, and the epochs it was
/// written under. Kept with the near cache's entry (<see cref="NearCaching.NearCacheEntry.Decoded"/>), so a hit
/// neither parses the header nor copies the value again.
/// </summary>
internal sealed class TaggedValue(byte[] value, WrittenEpochs epochs)
{
    /// <summary>The value as written, without the header. Shared by every hit: callers must not change it.</summary>
    public byte[] Value { get; } = value;

    public WrittenEpochs Epochs { get; } = epochs;

    /// <summary>The entry stored as <paramref name="stored"/>, or null when it does not start with a tag header.</summary>
    public static TaggedValue? Of(byte[] stored, WrittenEpochsTable written) =>
        written.TryRead(stored, out var valueOffset, out var epochs) ? new TaggedValue(stored.AsSpan(valueOffset).ToArray(), epochs) : null;
}
