using Cubby.AppHost;

// The dev environment as code: PostgreSQL (when there is one), a cluster of silos on it, and the sample web app wired
// to the silos. Each starts once the one before it is healthy; Ctrl+C stops them in order.
return await AppHostCommand.RunAsync(args, static builder =>
{
    var postgres = builder.AddPostgres("postgres");
    var silos = builder.AddSilos("silo", builder.Options.Silos).WithMembership(postgres);
    builder.AddProject("web", BuiltAssemblies.SampleWeb).WithReference(silos);
}).ConfigureAwait(false);
