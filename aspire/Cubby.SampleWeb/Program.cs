using Cubby.SampleWeb;

var builder = WebApplication.CreateBuilder(args);
builder.AddServiceDefaults();

// ICubbyClient and IDistributedCache on the cluster the AppHost hands over as ConnectionStrings:cache (Cubby.Aspire.Client),
// with a health check and distributed tracing into the silos; and Cubby's own HybridCache, whose copies in this
// instance's memory the silos keep coherent with every other instance's writes and tag removals.
builder.AddCubbyClient("cache").AddCubbyHybridCache();
builder.Services.AddSession(session =>
{
    session.IdleTimeout = TimeSpan.FromMinutes(20);
    session.Cookie.Name = "cubby.session";
    session.Cookie.IsEssential = true;
});

var app = builder.Build();
app.UseSession();
app.MapDefaultEndpoints();
app.MapGet("/", HomePage.Describe);
app.MapGet("/primes/{limit:int}", Primes.GetAsync);
app.MapGet("/visits", Visits.CountAsync);
app.MapGet("/owner/{key}", Owner.GetAsync);
app.MapGet("/fibonacci/{index:int}", Fibonacci.GetAsync);
await app.RunAsync().ConfigureAwait(false);
