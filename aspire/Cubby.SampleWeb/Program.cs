using Cubby.SampleWeb;

var builder = WebApplication.CreateBuilder(args);
builder.AddServiceDefaults();

// Silos' gateways come from ConnectionStrings:cubby (the AppHost sets it) or Cubby:Client:Endpoints.
builder.Services.AddCubbyClient().AddCubbyDistributedCache();
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
await app.RunAsync().ConfigureAwait(false);
