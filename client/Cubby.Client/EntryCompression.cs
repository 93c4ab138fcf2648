using System.Buffers;
using System.IO.Compression;

namespace Cubby.Client;

/// <summary>Brotli compression of values stored with <see cref="CacheEntryFlags.Compressed"/>.</summary>
internal static class EntryCompression
{
    private const int Quality = 4;
    private const int Window = 22;

    /// <summary>Compresses a value into an array of its compressed length.</summary>
    public static byte[] Compress(ReadOnlySpan<byte> value)
    {
        var buffer = ArrayPool<byte>.Shared.Rent(BrotliEncoder.GetMaxCompressedLength(value.Length));
        try
        {
            return BrotliEncoder.TryCompress(value, buffer, out var length, Quality, Window)
                ? buffer.AsSpan(0, length).ToArray()
                : throw new InvalidOperationException("Brotli could not compress the value into its maximum compressed size.");
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>Decompresses a value; a corrupt one is a <see cref="CubbyException"/> naming the key.</summary>
    public static byte[] Decompress(ReadOnlySpan<byte> compressed, string key)
    {
        var output = new ArrayBufferWriter<byte>(Math.Max(256, compressed.Length * 4));
        using var decoder = new BrotliDecoder();
        while (true)
        {
            var status = decoder.Decompress(compressed, output.GetSpan(Math.Max(4096, output.FreeCapacity)), out var consumed, out var written);
            output.Advance(written);
            compressed = compressed[consumed..];
            switch (status)
            {
                case OperationStatus.Done:
                    return output.WrittenSpan.ToArray();
                case OperationStatus.DestinationTooSmall:
                    continue;
                default:
                    throw new CubbyException($"The value of '{key}' is flagged Compressed but is not valid Brotli data ({status}).");
            }
        }
    }
}
