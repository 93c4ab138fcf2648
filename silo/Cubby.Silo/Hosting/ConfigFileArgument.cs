using Microsoft.Extensions.Configuration.Json;
using Microsoft.Extensions.FileProviders;

namespace Cubby.Silo.Hosting;

/// <summary>
/// <c>--config FILE</c> (or <c>--config=FILE</c>): a JSON settings file of the operator's, read after the
/// <c>appsettings.json</c> beside the silo and before the environment and the command line, which still override it.
/// An installed tool's own folder is no place for an operator's settings; this names one anywhere.
/// </summary>
internal static class ConfigFileArgument
{
    private const string Name = "--config";

    /// <summary>Takes <c>--config</c> out of <paramref name="args"/>.</summary>
    /// <returns>The file's full path (or null when not given) and the other arguments.</returns>
    /// <exception cref="SiloStartException">--config names no file, or a file that is not there.</exception>
    public static (string? Path, string[] Others) Take(string[] args)
    {
        string? path = null;
        var rest = new List<string>(args.Length);
        for (var i = 0; i < args.Length; i++)
        {
            var arg = args[i];
            string value;
            if (arg == Name)
            {
                value = i + 1 < args.Length ? args[++i] : "";
            }
            else if (arg.StartsWith(Name + "=", StringComparison.Ordinal))
            {
                value = arg[(Name.Length + 1)..];
            }
            else
            {
                rest.Add(arg);
                continue;
            }

            if (string.IsNullOrWhiteSpace(value) || value.StartsWith("--", StringComparison.Ordinal))
            {
                throw new SiloStartException("--config needs a settings file's path, e.g. --config /etc/cubby/cubby.json.");
            }

            path = System.IO.Path.GetFullPath(value);
            if (!File.Exists(path))
            {
                throw new SiloStartException($"--config names {path}, which is not there.");
            }
        }

        return (path, rest.ToArray());
    }

    /// <summary>
    /// Puts the file in <paramref name="configuration"/> right after its last JSON file (the <c>appsettings</c> ones),
    /// so the environment and the command line keep overriding it. Only that file's folder is watched for changes.
    /// </summary>
    public static void AddTo(IConfigurationBuilder configuration, string path)
    {
        var source = new JsonConfigurationSource
        {
            FileProvider = new PhysicalFileProvider(System.IO.Path.GetDirectoryName(path)!),
            Path = System.IO.Path.GetFileName(path),
            Optional = false,
            ReloadOnChange = false,
        };
        var sources = configuration.Sources;
        var lastJson = -1;
        for (var i = 0; i < sources.Count; i++)
        {
            if (sources[i] is JsonConfigurationSource)
            {
                lastJson = i;
            }
        }

        sources.Insert(lastJson + 1, source);
    }
}
