namespace Cubby.Load.Measurement;

/// <summary>The median of a value over rounds, with its smallest and largest.</summary>
internal sealed record Stat(double Median, double Min, double Max)
{
    public static Stat? Of(IEnumerable<double?> values)
    {
        var known = values.Where(v => v is { } x && double.IsFinite(x)).Select(v => v!.Value).Order().ToArray();
        if (known.Length == 0)
        {
            return null;
        }

        var middle = known.Length / 2;
        var median = known.Length % 2 == 1 ? known[middle] : (known[middle - 1] + known[middle]) / 2;
        return new Stat(median, known[0], known[^1]);
    }
}
