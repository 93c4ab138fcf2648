namespace Cubby.Client.NearCaching;

/// <summary>What a layer over the client made of an entry's value (<see cref="NearCacheEntry.Decoded"/>), with the bytes it was made of.</summary>
internal interface IDecodedValue
{
    /// <summary>The value's bytes, as the near cache keeps them.</summary>
    byte[] Payload { get; }
}
