using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text;
using Cubby.Client;

namespace Cubby.Tests.Orleans;

/// <summary>
/// Writers and readers that run against a cluster while it changes, recording every acknowledged write, every failed
/// call and the longest call, so a test can check that nothing acknowledged was lost and no call failed.
/// </summary>
internal sealed class ClusterLoad : IAsyncDisposable
{
    private readonly ICubbyClient _client;
    private readonly CancellationTokenSource _stop = new();
    private readonly ConcurrentDictionary<string, string> _acknowledged = new();

    // Per key, the values of writes since its last acknowledged one whose calls failed: each may have landed or not.
    private readonly ConcurrentDictionary<string, List<string>> _unanswered = new();
    private readonly ConcurrentQueue<string> _failures = new();
    private readonly Task[] _workers;
    private long _calls;
    private long _longestTicks;

    public ClusterLoad(ICubbyClient client, int workers, int keySpace, string prefix = "load")
    {
        _client = client;
        KeySpace = keySpace;
        Prefix = prefix;
        _workers = Enumerable.Range(0, workers).Select(worker => Task.Run(() => RunAsync(worker))).ToArray();
    }

    public int KeySpace { get; }

    public string Prefix { get; }

    public long Calls => Interlocked.Read(ref _calls);

    public TimeSpan LongestCall => TimeSpan.FromTicks(Interlocked.Read(ref _longestTicks));

    public IReadOnlyDictionary<string, string> Acknowledged => _acknowledged;

    /// <summary>The longest call so far, starting the measure afresh: for the longest call of each phase of a test.</summary>
    public TimeSpan TakeLongestCall() => TimeSpan.FromTicks(Interlocked.Exchange(ref _longestTicks, 0));

    public IReadOnlyCollection<string> Failures => _failures;

    public async Task StopAsync()
    {
        await _stop.CancelAsync();
        await Task.WhenAll(_workers);
    }

    /// <summary>
    /// Every acknowledged write that does not read back with its last acknowledged value, or the value of a later write
    /// whose call failed (its outcome unknown to the writer, it may have landed).
    /// </summary>
    public async Task<List<string>> FindLostAsync(ICubbyClient reader)
    {
        var lost = new List<string>();
        foreach (var (key, value) in _acknowledged)
        {
            var read = await reader.GetAsync(key);
            if (!CouldRead(key, value, read))
            {
                lost.Add($"{key}: expected {value}{Unanswered(key)}, read {Text(read)}");
            }
        }

        return lost;
    }

    public ValueTask DisposeAsync()
    {
        _stop.Cancel();
        _stop.Dispose();
        return ValueTask.CompletedTask;
    }

    private async Task RunAsync(int worker)
    {
        var random = new Random(worker);
        var round = 0;
        while (!_stop.IsCancellationRequested)
        {
            // Each key has one writer (keys are split by worker), so its last acknowledged value is the one to find.
            var key = $"{Prefix}:{worker}:{random.Next(KeySpace)}";
            var value = $"{worker}:{round++}";
            var clock = Stopwatch.StartNew();
            try
            {
                if (round % 3 == 0)
                {
                    var read = await _client.GetAsync(key);
                    if (_acknowledged.TryGetValue(key, out var expected) && !CouldRead(key, expected, read))
                    {
                        _failures.Enqueue($"{key}: read {Text(read)}, last acknowledged {expected}{Unanswered(key)}");
                    }
                }
                else
                {
                    await _client.PutAsync(key, Encoding.UTF8.GetBytes(value));
                    _acknowledged[key] = value;
                    _unanswered.TryRemove(key, out _);
                }
            }
            catch (Exception exception) when (exception is CubbyException or TimeoutException)
            {
                _failures.Enqueue($"{key}: {exception.GetType().Name}: {exception.Message}");
                if (round % 3 != 0)
                {
                    _unanswered.GetOrAdd(key, static _ => []).Add(value);
                }
            }

            Interlocked.Increment(ref _calls);
            var elapsed = clock.Elapsed.Ticks;
            long longest;
            while (elapsed > (longest = Interlocked.Read(ref _longestTicks)) && Interlocked.CompareExchange(ref _longestTicks, elapsed, longest) != longest)
            {
            }
        }
    }

    private bool CouldRead(string key, string acknowledged, byte[]? read) =>
        read is not null && Encoding.UTF8.GetString(read) is var text && (text == acknowledged || (_unanswered.TryGetValue(key, out var unanswered) && unanswered.Contains(text)));

    private string Unanswered(string key) =>
        _unanswered.TryGetValue(key, out var unanswered) ? $" (or, unanswered, {string.Join(" or ", unanswered)})" : "";

    private static string Text(byte[]? value) => value is null ? "nothing" : Encoding.UTF8.GetString(value);
}
