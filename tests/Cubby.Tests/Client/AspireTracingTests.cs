using System.Collections.Concurrent;
using System.Diagnostics;
using Cubby.Client;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using static Cubby.Tests.Client.AspireClientHost;

namespace Cubby.Tests.Client;

/// <summary>
/// Distributed tracing on Cubby's gateway client: <c>WithDistributedTracing()</c>, which <c>builder.AddCubbyClient</c>
/// calls unless <c>DisableTracing</c>, makes a call inside an activity start Orleans' client activity under it.
/// </summary>
public sealed class AspireTracingTests
{
    private const string PropagationFilter = "ActivityPropagationOutgoingGrainCallFilter";

    [Fact]
    public async Task With_tracing_a_call_inside_an_activity_starts_Orleans_client_activity_under_it()
    {
        await using var silo = await StartSiloAsync();
        using var app = await StartAppAsync(silo, disableTracing: false);
        using var activities = new ActivityRecorder();

        var parent = await CallInsideAnActivityAsync(app, activities, "traced");

        Activity? child = null;
        await Poll.UntilAsync(() => (child = activities.Children(parent).FirstOrDefault(a => a.Kind == ActivityKind.Client)) is not null, TestDeadlines.Call, "Orleans' client activity under the caller's");
        Assert.Equal(global::Orleans.Diagnostics.ActivitySources.ApplicationGrainActivitySourceName, child!.Source.Name);
        Assert.Contains("IShardGrain", child.OperationName, StringComparison.Ordinal);
        Assert.Equal(parent.TraceId, child.TraceId);
    }

    [Fact]
    public async Task With_DisableTracing_a_call_inside_an_activity_starts_no_Orleans_activity_under_it()
    {
        await using var silo = await StartSiloAsync();
        using var app = await StartAppAsync(silo, disableTracing: true);
        using var activities = new ActivityRecorder();

        var parent = await CallInsideAnActivityAsync(app, activities, "untraced");

        // Orleans stops a call's client activity before the call completes, so it would be recorded by now.
        Assert.Contains(parent, activities.Stopped);
        Assert.Empty(activities.Children(parent));
        Assert.DoesNotContain(app.Services.GetServices<IOutgoingGrainCallFilter>(), filter => filter.GetType().Name == PropagationFilter);
    }

    [Fact]
    public void Plain_AddCubbyClient_leaves_tracing_off_and_WithDistributedTracing_turns_it_on_once()
    {
        var services = new ServiceCollection();
        var cubby = services.AddCubbyClient(o => o.Endpoints.Add("127.0.0.1:30001"));
        Assert.Equal(0, PropagationFilters(services));

        cubby.WithDistributedTracing().WithDistributedTracing();
        services.AddCubbyClient().WithDistributedTracing();

        Assert.Equal(1, PropagationFilters(services));
    }

    [Fact]
    public void WithDistributedTracing_does_nothing_where_the_client_uses_the_processes_own_Orleans()
    {
        var services = new ServiceCollection();
        services.AddSingleton<IGrainFactory>(_ => throw new InvalidOperationException("not resolved"));
        var cubby = services.AddCubbyClient();
        var before = services.ToList();

        cubby.WithDistributedTracing();

        Assert.Equal(before, services);
    }

    private static int PropagationFilters(IServiceCollection services) =>
        services.Count(d => d.ServiceType == typeof(IOutgoingGrainCallFilter) && d.ImplementationType?.Name == PropagationFilter);

    private static async Task<IHost> StartAppAsync(Infrastructure.TestSilo silo, bool disableTracing)
    {
        var builder = CreateBuilder(silo, new() { ["Aspire:Cubby:Client:DisableTracing"] = disableTracing ? "true" : "false" });
        builder.AddCubbyClient(ConnectionName);
        var app = builder.Build();
        await app.StartAsync().WaitAsync(TestDeadlines.Phase);

        // Connected outside any activity, so the connection's own work belongs to no test's trace.
        Assert.False(await app.Services.GetRequiredService<ICubbyClient>().ExistsAsync("warm-up").AsTask().WaitAsync(TestDeadlines.Call));
        return app;
    }

    private static async Task<Activity> CallInsideAnActivityAsync(IHost app, ActivityRecorder activities, string key)
    {
        var client = app.Services.GetRequiredService<ICubbyClient>();
        using var parent = activities.Source.StartActivity("web request");
        Assert.NotNull(parent);
        await client.PutAsync(key, "v"u8.ToArray()).AsTask().WaitAsync(TestDeadlines.Call);
        return parent;
    }

    /// <summary>Records the activities of a source of the test's own and of Orleans' sources, all sampled.</summary>
    private sealed class ActivityRecorder : IDisposable
    {
        private readonly ActivityListener _listener;
        private readonly ConcurrentQueue<Activity> _stopped = new();

        public ActivityRecorder()
        {
            Source = new ActivitySource($"Cubby.Tests.Tracing.{Guid.NewGuid():N}");
            _listener = new ActivityListener
            {
                ShouldListenTo = source => source == Source || source.Name.StartsWith("Microsoft.Orleans", StringComparison.Ordinal),
                Sample = static (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
                ActivityStopped = _stopped.Enqueue,
            };
            ActivitySource.AddActivityListener(_listener);
        }

        public ActivitySource Source { get; }

        public IReadOnlyCollection<Activity> Stopped => _stopped;

        /// <summary>Orleans' activities whose parent is <paramref name="parent"/>.</summary>
        public IEnumerable<Activity> Children(Activity parent) =>
            _stopped.Where(a => a.Source != Source && a.TraceId == parent.TraceId && a.ParentSpanId == parent.SpanId);

        public void Dispose()
        {
            _listener.Dispose();
            Source.Dispose();
        }
    }
}
