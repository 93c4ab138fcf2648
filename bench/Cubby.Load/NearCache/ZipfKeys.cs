namespace Cubby.Load.NearCache;

/// <summary>Key ranks drawn with Zipf's law (exponent <c>s</c>): rank 0 is the most read, rank k about 1/(k+1)^s as often.</summary>
internal sealed class ZipfKeys
{
    private readonly double[] _cumulative;

    public ZipfKeys(int count, double exponent = 0.99)
    {
        _cumulative = new double[count];
        var sum = 0.0;
        for (var rank = 0; rank < count; rank++)
        {
            sum += 1 / Math.Pow(rank + 1, exponent);
            _cumulative[rank] = sum;
        }

        for (var rank = 0; rank < count; rank++)
        {
            _cumulative[rank] /= sum;
        }
    }

    public int Count => _cumulative.Length;

    public int Next(Random random)
    {
        var index = Array.BinarySearch(_cumulative, random.NextDouble());
        return Math.Min(index < 0 ? ~index : index, _cumulative.Length - 1);
    }
}
