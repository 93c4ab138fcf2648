using System.Diagnostics;
using Cubby.ServiceDefaults;
using OpenTelemetry.Trace;

namespace Cubby.Tests.ServiceDefaults;

/// <summary>Which spans the service defaults' sampler keeps: requests and all under them, not Orleans' background calls.</summary>
public sealed class BackgroundCallSamplerTests
{
    private static readonly BackgroundCallSampler Sampler = new();

    [Theory]
    [InlineData("IGrainTimerInvoker/InvokeCallbackAsync", SamplingDecision.Drop)]
    [InlineData("IMembershipService/Ping", SamplingDecision.Drop)]
    [InlineData("Microsoft.AspNetCore.Hosting.HttpRequestIn", SamplingDecision.RecordAndSample)]
    [InlineData("System.Net.Http.HttpRequestOut", SamplingDecision.RecordAndSample)]
    [InlineData("GET /primes/{limit:int}", SamplingDecision.RecordAndSample)]
    public void A_root_span_is_dropped_only_when_it_is_an_Orleans_call(string name, SamplingDecision expected) =>
        Assert.Equal(expected, Decide(default, name));

    [Theory]
    [InlineData(ActivityTraceFlags.Recorded, SamplingDecision.RecordAndSample)]
    [InlineData(ActivityTraceFlags.None, SamplingDecision.Drop)]
    public void A_child_span_follows_its_parent_even_when_it_is_an_Orleans_call(ActivityTraceFlags parentFlags, SamplingDecision expected)
    {
        var parent = new ActivityContext(ActivityTraceId.CreateRandom(), ActivitySpanId.CreateRandom(), parentFlags, isRemote: true);
        Assert.Equal(expected, Decide(parent, "IShardGrain/Get"));
    }

    private static SamplingDecision Decide(ActivityContext parent, string name) =>
        Sampler.ShouldSample(new SamplingParameters(parent, parent.TraceId == default ? ActivityTraceId.CreateRandom() : parent.TraceId, name, ActivityKind.Server)).Decision;
}
