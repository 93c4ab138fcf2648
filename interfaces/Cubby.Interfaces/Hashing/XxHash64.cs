using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cubby.Hashing;

/// <summary>
/// The 64-bit xxHash (XXH64) of a byte sequence, as published in the xxHash specification.
/// </summary>
/// <remarks>
/// The result is identical on every process, machine and architecture, so it may be part of a wire or storage contract.
/// The computation reads the input in place and allocates nothing.
/// </remarks>
public static class XxHash64
{
    private const ulong Prime1 = 0x9E3779B185EBCA87UL;
    private const ulong Prime2 = 0xC2B2AE3D27D4EB4FUL;
    private const ulong Prime3 = 0x165667B19E3779F9UL;
    private const ulong Prime4 = 0x85EBCA77C2B2AE63UL;
    private const ulong Prime5 = 0x27D4EB2F165667C5UL;

    private const int StripeLength = 32;

    /// <summary>Computes the XXH64 hash of <paramref name="data"/>.</summary>
    /// <param name="data">The bytes to hash.</param>
    /// <param name="seed">The seed; 0 unless a caller needs an independent hash family.</param>
    /// <returns>The 64-bit hash.</returns>
    public static ulong Hash(ReadOnlySpan<byte> data, ulong seed = 0)
    {
        ref byte start = ref MemoryMarshal.GetReference(data);
        nuint length = (nuint)data.Length;
        nuint offset = 0;
        ulong acc;

        if (length >= StripeLength)
        {
            ulong acc1 = unchecked(seed + Prime1 + Prime2);
            ulong acc2 = unchecked(seed + Prime2);
            ulong acc3 = seed;
            ulong acc4 = unchecked(seed - Prime1);

            nuint lastStripe = length - StripeLength;
            do
            {
                acc1 = Round(acc1, ReadUInt64(ref start, offset));
                acc2 = Round(acc2, ReadUInt64(ref start, offset + 8));
                acc3 = Round(acc3, ReadUInt64(ref start, offset + 16));
                acc4 = Round(acc4, ReadUInt64(ref start, offset + 24));
                offset += StripeLength;
            }
            while (offset <= lastStripe);

            acc = unchecked(BitOperations.RotateLeft(acc1, 1) + BitOperations.RotateLeft(acc2, 7)
                + BitOperations.RotateLeft(acc3, 12) + BitOperations.RotateLeft(acc4, 18));
            acc = MergeAccumulator(acc, acc1);
            acc = MergeAccumulator(acc, acc2);
            acc = MergeAccumulator(acc, acc3);
            acc = MergeAccumulator(acc, acc4);
        }
        else
        {
            acc = unchecked(seed + Prime5);
        }

        acc = unchecked(acc + (ulong)length);

        while (length - offset >= 8)
        {
            acc ^= Round(0, ReadUInt64(ref start, offset));
            acc = unchecked((BitOperations.RotateLeft(acc, 27) * Prime1) + Prime4);
            offset += 8;
        }

        if (length - offset >= 4)
        {
            acc ^= unchecked(ReadUInt32(ref start, offset) * Prime1);
            acc = unchecked((BitOperations.RotateLeft(acc, 23) * Prime2) + Prime3);
            offset += 4;
        }

        while (offset < length)
        {
            acc ^= unchecked(Unsafe.Add(ref start, offset) * Prime5);
            acc = unchecked(BitOperations.RotateLeft(acc, 11) * Prime1);
            offset++;
        }

        return Avalanche(acc);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Round(ulong acc, ulong lane)
    {
        acc = unchecked(acc + (lane * Prime2));
        acc = BitOperations.RotateLeft(acc, 31);
        return unchecked(acc * Prime1);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong MergeAccumulator(ulong acc, ulong accN)
    {
        acc ^= Round(0, accN);
        return unchecked((acc * Prime1) + Prime4);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Avalanche(ulong acc)
    {
        acc ^= acc >> 33;
        acc = unchecked(acc * Prime2);
        acc ^= acc >> 29;
        acc = unchecked(acc * Prime3);
        acc ^= acc >> 32;
        return acc;
    }

    // Callers guarantee offset + 8 <= length, so the unchecked read stays inside the span.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong ReadUInt64(ref byte start, nuint offset)
    {
        ulong value = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref start, offset));
        return BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value);
    }

    // Callers guarantee offset + 4 <= length, so the unchecked read stays inside the span.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint ReadUInt32(ref byte start, nuint offset)
    {
        uint value = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref start, offset));
        return BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value);
    }
}
