namespace Cubby.Load.Faults;

/// <summary>
/// Silo processes in a <see cref="FaultNetwork"/>, one per node, clustered through PostgreSQL in a node of its own (the
/// last), and the faults of a <see cref="FaultSchedule"/> done to them and healed. A silo that learns the cluster declared
/// it dead stops; like a supervisor, the cluster starts it again once the fault is healed.
/// </summary>
internal sealed class FaultCluster : IAsyncDisposable
{
    /// <summary>
    /// How long a silo tries a call for a RESP client (<c>Cubby:Clustering:CallTimeout</c>, its default), and so the
    /// deadline of a command it relays: the workload's RESP clients wait longer. It is also how long a transaction keeps
    /// its holds: 5 s lost them in most runs of the two-minute schedule.
    /// </summary>
    public static readonly TimeSpan CallTimeout = TimeSpan.FromSeconds(15);

    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(90);

    private readonly ToolSet _tools;
    private readonly NodeSilo[] _silos;

    private readonly string? _logs;
    private DelayRelay? _relay;

    private FaultCluster(FaultNetwork network, NodePostgres postgres, ToolSet tools, int silos, string? logs)
    {
        (Network, Postgres, _tools, _logs) = (network, postgres, tools, logs);
        _silos = new NodeSilo[silos];
    }

    public FaultNetwork Network { get; }

    public NodePostgres Postgres { get; }

    public IReadOnlyList<NodeSilo> Silos => _silos;

    /// <summary>The node PostgreSQL runs in: the one after the silos'.</summary>
    public int PostgresNode => _silos.Length;

    /// <summary>
    /// Starts the network, PostgreSQL and <paramref name="silos"/> silos; done once every silo answers. With
    /// <paramref name="delay"/>, every byte between silos is held that long each way (<see cref="DelayRelay"/>). With
    /// <paramref name="logs"/>, each silo logs membership and fencing too, with times, to <c>node-N.log</c> there.
    /// </summary>
    public static async Task<FaultCluster> StartAsync(int silos, ToolSet tools, TimeSpan? delay = null, string? logs = null)
    {
        var network = await FaultNetwork.CreateAsync(silos + 1).ConfigureAwait(false);
        NodePostgres? postgres = null;
        DelayRelay? relay = null;
        try
        {
            postgres = await NodePostgres.StartAsync(network, silos).ConfigureAwait(false);

            // Before the silos: the redirects catch the connections they make.
            relay = delay is { } held ? await DelayRelay.StartAsync(network, silos, NodeSilo.SiloPort, held).ConfigureAwait(false) : null;
            var cluster = new FaultCluster(network, postgres, tools, silos, logs) { _relay = relay };

            // The first creates the membership tables; the others join it.
            cluster._silos[0] = cluster.StartSilo(0);
            await cluster._silos[0].WaitUntilReadyAsync(StartTimeout).ConfigureAwait(false);
            for (var node = 1; node < silos; node++)
            {
                cluster._silos[node] = cluster.StartSilo(node);
            }

            await cluster.WaitUntilAllAnswerAsync().ConfigureAwait(false);
            return cluster;
        }
        catch
        {
            if (relay is not null)
            {
                await relay.DisposeAsync().ConfigureAwait(false);
            }

            postgres?.Dispose();
            await network.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>Does <paramref name="step"/>'s fault.</summary>
    public async Task ApplyAsync(FaultStep step)
    {
        var victim = step.Nodes[0];
        var peers = Enumerable.Range(0, _silos.Length).Where(node => node != victim).ToArray();
        switch (step.Kind)
        {
            case FaultKind.Cut:
                await Network.CutAsync(victim, peers).ConfigureAwait(false);
                break;
            case FaultKind.Halves:
            case FaultKind.Bridge:
                foreach (var node in step.Nodes)
                {
                    await Network.CutAsync(node, step.Others).ConfigureAwait(false);
                }

                break;
            case FaultKind.Postgres:
                await Network.CutAsync(victim, PostgresNode).ConfigureAwait(false);
                break;
            case FaultKind.Loss:
                await Network.LoseAsync(victim, FaultStep.LossRate, peers).ConfigureAwait(false);
                break;
            case FaultKind.Pause:
                _silos[victim].Pause();
                break;
            case FaultKind.Kill:
                _silos[victim].Kill();
                break;
        }
    }

    /// <summary>Ends <paramref name="step"/>'s fault: the network heals, a paused silo wakes (a killed one stays down).</summary>
    public async Task HealAsync(FaultStep step)
    {
        await Network.HealAsync().ConfigureAwait(false);
        if (step.Kind == FaultKind.Pause)
        {
            _silos[step.Nodes[0]].Resume();
        }
    }

    /// <summary>
    /// Starts again every silo that stopped (killed, or declared dead: Orleans ends such a silo's process), and waits
    /// until every silo answers; one that stops meanwhile, having only now heard it was declared dead, is started again.
    /// </summary>
    /// <returns>The nodes started again.</returns>
    public async Task<IReadOnlyList<int>> RestartStoppedAsync()
    {
        const int Attempts = 3;
        var restarted = new List<int>();
        for (var node = 0; node < _silos.Length; node++)
        {
            for (var attempt = 1; ; attempt++)
            {
                if (_silos[node].HasExited)
                {
                    _silos[node].Dispose();
                    _silos[node] = StartSilo(node);
                    if (!restarted.Contains(node))
                    {
                        restarted.Add(node);
                    }
                }

                try
                {
                    await _silos[node].WaitUntilReadyAsync(StartTimeout).ConfigureAwait(false);
                    break;
                }
                catch (HarnessException) when (_silos[node].HasExited && attempt < Attempts)
                {
                }
            }
        }

        return restarted;
    }

    public async ValueTask DisposeAsync()
    {
        foreach (var silo in _silos)
        {
            silo?.Dispose();
        }

        if (_relay is not null)
        {
            await _relay.DisposeAsync().ConfigureAwait(false);
        }

        Postgres.Dispose();
        await Network.DisposeAsync().ConfigureAwait(false);
    }

    private NodeSilo StartSilo(int node) => NodeSilo.Start(
        Network,
        node,
        _tools.Dotnet,
        _tools.Silo,
        [
            "--Cubby:Clustering:Mode", "Postgres", "--Cubby:Clustering:ConnectionString", Postgres.ConnectionString,
            "--Cubby:Clustering:CallTimeout", CallTimeout.ToString("c", System.Globalization.CultureInfo.InvariantCulture), .. _logs is null ? [] : LogArguments,
        ],
        _logs is null ? null : Path.Combine(_logs, $"node-{node}.log"));

    /// <summary>What a silo logs when <c>--logs</c> is given: what its shards and fence did, and what its membership saw.</summary>
    private static string[] LogArguments =>
    [
        "--Logging:LogLevel:Cubby.Grains", "Information", "--Logging:LogLevel:Orleans.Runtime.MembershipService", "Information",
        "--Logging:Console:FormatterOptions:TimestampFormat", "HH:mm:ss.fff ", "--Logging:Console:FormatterOptions:SingleLine", "true",
    ];

    private async Task WaitUntilAllAnswerAsync()
    {
        foreach (var silo in _silos)
        {
            await silo.WaitUntilReadyAsync(StartTimeout).ConfigureAwait(false);
        }
    }
}
