using System.Buffers;

namespace Cubby.Client.Serialization;

/// <summary>Turns objects into cache values and back, for <see cref="ICubbyClient"/>'s typed methods.</summary>
public interface ICubbySerializer
{
    /// <summary>Writes <paramref name="value"/> to <paramref name="destination"/>.</summary>
    /// <typeparam name="T">The value's type.</typeparam>
    /// <param name="value">The object to store.</param>
    /// <param name="destination">Where its bytes go.</param>
    void Serialize<T>(T value, IBufferWriter<byte> destination);

    /// <summary>Reads an object back from the bytes <see cref="Serialize{T}"/> wrote.</summary>
    /// <typeparam name="T">The value's type.</typeparam>
    /// <param name="bytes">The stored bytes.</param>
    /// <returns>The object.</returns>
    T? Deserialize<T>(ReadOnlyMemory<byte> bytes);
}
