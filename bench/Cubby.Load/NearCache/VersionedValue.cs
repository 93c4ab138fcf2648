using System.Buffers.Binary;
using System.Globalization;

namespace Cubby.Load.NearCache;

/// <summary>
/// The values the near-cache load writes: <see cref="Bytes"/> of a version, or the same as <see cref="Text"/> for the
/// stacks that cache a string, which HybridCache hands every caller as it is (an immutable type) where it gives each
/// caller of a <c>byte[]</c> its own copy.
/// </summary>
internal static class VersionedValue
{
    public const int Size = 256;

    public static byte[] Bytes(long version)
    {
        var value = new byte[Size];
        BinaryPrimitives.WriteInt64LittleEndian(value, version);
        return value;
    }

    public static long VersionOf(byte[] value) => BinaryPrimitives.ReadInt64LittleEndian(value);

    public static string Text(long version) => version.ToString("x16", CultureInfo.InvariantCulture).PadRight(Size, '.');

    public static long VersionOf(string value) => long.Parse(value.AsSpan(0, 16), NumberStyles.HexNumber, CultureInfo.InvariantCulture);
}
