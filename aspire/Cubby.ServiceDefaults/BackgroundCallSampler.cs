using System.Diagnostics;
using OpenTelemetry.Trace;

namespace Cubby.ServiceDefaults;

/// <summary>
/// Traces what enters the system (an HTTP request, a client's call) and everything under it, but not Orleans' own
/// background calls, which start traces of their own: grain timers (every shard's expiry cycle, ten times a second),
/// membership probes and statistics made over a thousand traces a minute on an idle three-silo cluster and buried the
/// requests in the dashboard. Such a call is a root span named as Orleans names calls, <c>IInterface/Method</c>.
/// </summary>
internal sealed class BackgroundCallSampler : Sampler
{
    public override SamplingResult ShouldSample(in SamplingParameters samplingParameters)
    {
        if (samplingParameters.ParentContext.TraceId != default)
        {
            var sampled = (samplingParameters.ParentContext.TraceFlags & ActivityTraceFlags.Recorded) != 0;
            return new SamplingResult(sampled ? SamplingDecision.RecordAndSample : SamplingDecision.Drop);
        }

        return new SamplingResult(IsOrleansCall(samplingParameters.Name) ? SamplingDecision.Drop : SamplingDecision.RecordAndSample);
    }

    private static bool IsOrleansCall(string name) => name.Length > 1 && name[0] == 'I' && name.Contains('/', StringComparison.Ordinal) && !name.Contains(' ', StringComparison.Ordinal);
}
