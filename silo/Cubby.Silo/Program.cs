using Cubby.Silo.Hosting;

var builder = WebApplication.CreateSlimBuilder(args);
builder.AddCubbySilo();
var app = builder.Build();
app.MapCubbySilo();
await app.RunAsync().ConfigureAwait(false);
