using System.Collections.Concurrent;
using Cubby.Silo.Cluster.Membership;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Cluster;

/// <summary>A network double for membership tests: each silo answers probes as the test says (at once by default).</summary>
internal sealed class ScriptedProber(FakeTimeProvider time) : ISiloProber
{
    private readonly ConcurrentDictionary<string, TimeSpan?> _answerAfter = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, int> _calls = new(StringComparer.Ordinal);

    /// <summary>The silo never answers again (killed, or cut off).</summary>
    public void Silence(string siloId) => _answerAfter[siloId] = null;

    /// <summary>The silo answers each probe after <paramref name="delay"/> of fake time.</summary>
    public void AnswerAfter(string siloId, TimeSpan delay) => _answerAfter[siloId] = delay;

    public int CallsTo(string siloId) => _calls.GetValueOrDefault(siloId);

    public Task<bool> ProbeAsync(MembershipEntry target, CancellationToken cancellationToken)
    {
        _calls.AddOrUpdate(target.SiloId, 1, static (_, count) => count + 1);
        if (!_answerAfter.TryGetValue(target.SiloId, out var delay))
        {
            return Task.FromResult(true);
        }

        if (delay is null)
        {
            return Task.Delay(Timeout.Infinite, cancellationToken).ContinueWith(static _ => false, TaskScheduler.Default);
        }

        // Completed by a fake timer, so it lands exactly when the clock passes the delay.
        var answer = new TaskCompletionSource<bool>();
        var timer = time.CreateTimer(static state => ((TaskCompletionSource<bool>)state!).TrySetResult(true), answer, delay.Value, Timeout.InfiniteTimeSpan);
        cancellationToken.Register(() =>
        {
            timer.Dispose();
            answer.TrySetCanceled(cancellationToken);
        });
        return answer.Task;
    }
}
