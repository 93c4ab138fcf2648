using System.Security.Cryptography;
using Cubby.AppHost.Resources;
using Cubby.AppHost.Resources.Postgres;

namespace Cubby.AppHost;

/// <summary>Describes the dev environment: each resource added starts after the ones added before it are healthy.</summary>
internal sealed class DevEnvironmentBuilder
{
    private readonly List<Resource> _resources = [];
    private readonly DevContext _context;

    public DevEnvironmentBuilder(AppHostOptions options, ConsoleOutput output)
    {
        _context = new DevContext(options, output, Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(4)));
    }

    public AppHostOptions Options => _context.Options;

    /// <summary>
    /// PostgreSQL: the one the options name, else a throwaway server from the machine's binaries; null (the silos then
    /// use Development clustering) with <c>--no-postgres</c> or when neither exists.
    /// </summary>
    public PostgresResource? AddPostgres(string name)
    {
        if (Options.NoPostgres)
        {
            _context.Output.Info("--no-postgres: the silos use Development clustering (the first silo keeps the membership table).");
            return null;
        }

        if (Options.PostgresConnectionString is { } connectionString)
        {
            return Add(new ExternalPostgres(name, connectionString, _context));
        }

        if (PostgresResource.FindBinaries() is { } binaries)
        {
            return Add(new ThrowawayPostgres(name, binaries, _context));
        }

        _context.Output.Info($"No PostgreSQL: none under {PostgresResource.BinariesRoot}/*/bin and no ConnectionStrings__postgres; the silos use Development clustering.");
        return null;
    }

    /// <summary>Silos named <c>{name}-1</c> to <c>{name}-{count}</c>, started one after another.</summary>
    public SiloCluster AddSilos(string name, int count)
    {
        var silos = Enumerable.Range(1, count).Select(i => Add(new SiloResource($"{name}-{i}", BuiltAssemblies.Silo, _context))).ToArray();
        return new SiloCluster(silos, _context);
    }

    /// <summary>A web app built at <paramref name="assemblyPath"/>.</summary>
    public ProjectResource AddProject(string name, string assemblyPath) => Add(new ProjectResource(name, assemblyPath, _context));

    public DevEnvironment Build() => new(_resources, _context.Output);

    private T Add<T>(T resource)
        where T : Resource
    {
        if (_resources.Exists(existing => existing.Name == resource.Name))
        {
            throw new ArgumentException($"There is already a resource named {resource.Name}.", nameof(resource));
        }

        _resources.Add(resource);
        _context.Output.Register(resource.Name);
        return resource;
    }
}
