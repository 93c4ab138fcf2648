using System.Globalization;

namespace Cubby.Load.Persistence;

/// <summary>The files a server keeps at one moment: how many of each kind (by extension), and their bytes in all.</summary>
internal sealed record DiskUse(string Files, long Bytes)
{
    public static DiskUse None { get; } = new("none", 0);

    /// <summary>Every file under <paramref name="paths"/>, each a file or a folder (searched whole); one missing counts nothing.</summary>
    public static DiskUse Of(params string[] paths)
    {
        var files = new List<FileInfo>();
        foreach (var path in paths)
        {
            if (File.Exists(path))
            {
                files.Add(new FileInfo(path));
            }
            else if (Directory.Exists(path))
            {
                // A file deleted between listing and reading (a server replacing one) is left out.
                files.AddRange(new DirectoryInfo(path).EnumerateFiles("*", SearchOption.AllDirectories).Where(static file => file.Exists));
            }
        }

        if (files.Count == 0)
        {
            return None;
        }

        var kinds = files
            .GroupBy(static file => file.Extension.Length > 0 ? file.Extension : file.Name, StringComparer.Ordinal)
            .OrderByDescending(static kind => kind.Sum(Length))
            .Select(static kind => string.Create(CultureInfo.InvariantCulture, $"{kind.Count():N0} {kind.Key}"));
        return new DiskUse(string.Join(", ", kinds), files.Sum(Length));

        static long Length(FileInfo file)
        {
            try
            {
                return file.Length;
            }
            catch (FileNotFoundException)
            {
                return 0;
            }
        }
    }

    /// <summary>Megabytes (10⁶ bytes), as the tables print them.</summary>
    public string Megabytes => string.Create(CultureInfo.InvariantCulture, $"{Bytes / 1e6:0.0} MB");
}
