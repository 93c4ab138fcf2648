using Cubby.Silo.Hosting;
using Microsoft.Extensions.Configuration;

namespace Cubby.Tests.Silo;

/// <summary><c>--config FILE</c>: taken out of the arguments, read after appsettings.json and before the environment and the command line.</summary>
public sealed class ConfigFileArgumentTests : IDisposable
{
    private readonly DirectoryInfo _folder = Directory.CreateTempSubdirectory("cubby-config-");

    [Fact]
    public void Both_forms_are_taken_out_and_the_other_arguments_kept_in_order()
    {
        var file = Write("a.json", "{}");

        var (path, others) = ConfigFileArgument.Take(["--Cubby:RespPort", "7000", "--config", file, "--Cubby:HttpPort", "8000"]);
        Assert.Equal(file, path);
        Assert.Equal(["--Cubby:RespPort", "7000", "--Cubby:HttpPort", "8000"], others);

        (path, others) = ConfigFileArgument.Take([$"--config={file}"]);
        Assert.Equal(file, path);
        Assert.Empty(others);

        (path, others) = ConfigFileArgument.Take(["--Cubby:RespPort", "7000"]);
        Assert.Null(path);
        Assert.Equal(["--Cubby:RespPort", "7000"], others);
    }

    [Theory]
    [InlineData("--config")]
    [InlineData("--config=")]
    [InlineData("--config", "--Cubby:RespPort")]
    public void A_config_without_a_path_names_what_it_needs(params string[] args)
    {
        var failure = Assert.Throws<SiloStartException>(() => ConfigFileArgument.Take(args));
        Assert.StartsWith("--config needs a settings file's path", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_config_naming_a_missing_file_names_the_file()
    {
        var missing = Path.Combine(_folder.FullName, "missing.json");
        var failure = Assert.Throws<SiloStartException>(() => ConfigFileArgument.Take(["--config", missing]));
        Assert.Equal($"--config names {missing}, which is not there.", failure.Message);
    }

    [Fact]
    public void The_file_overrides_appsettings_and_the_environment_and_command_line_override_it()
    {
        var appsettings = Write("appsettings.json", """{ "Cubby": { "RespPort": 1, "HttpPort": 1, "ClusterId": "base", "Host": "base" } }""");
        var file = Write("operator.json", """{ "Cubby": { "RespPort": 2, "HttpPort": 2, "ClusterId": "file" } }""");
        var environment = $"CUBBY_CONFIG_TEST_{Guid.NewGuid():N}_";
        Environment.SetEnvironmentVariable(environment + "Cubby__HttpPort", "3");
        try
        {
            var builder = new ConfigurationBuilder()
                .AddJsonFile(appsettings)
                .AddEnvironmentVariables(environment)
                .AddCommandLine(["--Cubby:RespPort", "4"]);
            ConfigFileArgument.AddTo(builder, file);
            var configuration = builder.Build();

            Assert.Equal("base", configuration["Cubby:Host"]);
            Assert.Equal("file", configuration["Cubby:ClusterId"]);
            Assert.Equal("3", configuration["Cubby:HttpPort"]);
            Assert.Equal("4", configuration["Cubby:RespPort"]);
        }
        finally
        {
            Environment.SetEnvironmentVariable(environment + "Cubby__HttpPort", null);
        }
    }

    public void Dispose() => _folder.Delete(recursive: true);

    private string Write(string name, string text)
    {
        var path = Path.Combine(_folder.FullName, name);
        File.WriteAllText(path, text);
        return path;
    }
}
