using System.Globalization;
using Cubby.Load.Measurement;

namespace Cubby.Load.Reports;

/// <summary>Numbers as the report prints them.</summary>
internal static class Format
{
    public static string Rate(double value) => value switch
    {
        >= 1e6 => string.Create(CultureInfo.InvariantCulture, $"{value / 1e6:0.00}M"),
        >= 1e3 => string.Create(CultureInfo.InvariantCulture, $"{value / 1e3:0.0}k"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{value:0}"),
    };

    public static string Rate(Stat? stat) => stat switch
    {
        null => "—",
        _ when stat.Min == stat.Max => Rate(stat.Median),
        _ => $"{Rate(stat.Median)} [{Rate(stat.Min)}–{Rate(stat.Max)}]",
    };

    public static string Number(Stat? stat, string format = "0.000") =>
        stat is null ? "—" : stat.Median.ToString(format, CultureInfo.InvariantCulture);

    public static string Ratio(Stat? numerator, Stat? denominator) =>
        numerator is null || denominator is null || denominator.Median <= 0
            ? "—"
            : string.Create(CultureInfo.InvariantCulture, $"{numerator.Median / denominator.Median:0.00}×");
}
