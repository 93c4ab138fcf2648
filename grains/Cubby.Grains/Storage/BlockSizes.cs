using System.Numerics;

namespace Cubby.Grains.Storage;

/// <summary>
/// The sizes entry blocks come in: multiples of 16 bytes up to 128, then eight steps per doubling up to 1 MiB, so a
/// block is at most 12.5 % larger than asked. Blocks of one class are interchangeable: a freed block serves the next
/// entry of its class, from a slab page (<see cref="SlabPages"/>) or the recycler (<see cref="BlockRecycler{TBlock}"/>).
/// Few classes matter as much as a close fit: every class a slab serves holds a partly filled page, and sixteen steps
/// per doubling left twice as many of those. Larger blocks have their exact size and no class.
/// </summary>
internal static class BlockSizes
{
    /// <summary>The largest block that has a class.</summary>
    public const int MaxClassed = 1 << 20;

    private const int FineLimit = 128;
    private const int FineStep = 16;
    private const int FineClasses = FineLimit / FineStep;
    private const int StepsPerDoubling = 8;
    private const int StepsPerDoublingLog2 = 3;
    private const int FineLimitLog2 = 7;

    /// <summary>How many classes there are.</summary>
    public const int ClassCount = FineClasses + StepsPerDoubling * (20 - FineLimitLog2);

    /// <summary>The class of a block of at least <paramref name="bytes"/>, or -1 when it is larger than <see cref="MaxClassed"/>.</summary>
    public static int ClassOf(long bytes)
    {
        if (bytes <= FineLimit)
        {
            return (int)Math.Max(0, ((bytes + FineStep - 1) / FineStep) - 1);
        }

        if (bytes > MaxClassed)
        {
            return -1;
        }

        // bytes lies in (2^power, 2^(power+1)], split into eight equal steps.
        var power = BitOperations.Log2((ulong)(bytes - 1));
        var step = 1L << (power - StepsPerDoublingLog2);
        var index = (bytes - (1L << power) + step - 1) / step;
        return FineClasses + ((power - FineLimitLog2) * StepsPerDoubling) + (int)index - 1;
    }

    /// <summary>The bytes of every block of <paramref name="sizeClass"/>.</summary>
    public static int CapacityOf(int sizeClass)
    {
        if (sizeClass < FineClasses)
        {
            return (sizeClass + 1) * FineStep;
        }

        var above = sizeClass - FineClasses;
        var power = FineLimitLog2 + (above / StepsPerDoubling);
        return (1 << power) + (((above % StepsPerDoubling) + 1) << (power - StepsPerDoublingLog2));
    }

    /// <summary>The bytes a block asked for <paramref name="bytes"/> has.</summary>
    public static long RoundUp(long bytes) => ClassOf(bytes) is var sizeClass and >= 0 ? CapacityOf(sizeClass) : bytes;
}
