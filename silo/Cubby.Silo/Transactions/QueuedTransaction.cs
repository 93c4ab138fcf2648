using Cubby.Resp;
using Cubby.Silo.Commands;

namespace Cubby.Silo.Transactions;

/// <summary>The commands a connection queued after MULTI, copied out of the connection's buffers, until EXEC or DISCARD.</summary>
internal sealed class QueuedTransaction : IDisposable
{
    private readonly List<(CommandDefinition Command, RespRequest Request)> _commands = [];

    /// <summary>An error while queueing (unknown command, wrong arity, ...): EXEC answers EXECABORT and runs nothing.</summary>
    public bool Aborted { get; private set; }

    /// <summary>The bytes of every queued argument, bounded by <c>Cubby:MaxRequestBytes</c>.</summary>
    public long QueuedBytes { get; private set; }

    public IReadOnlyList<(CommandDefinition Command, RespRequest Request)> Commands => _commands;

    public void Abort() => Aborted = true;

    public void Add(CommandDefinition command, RespRequest request)
    {
        var copy = new RespRequest();
        for (var i = 0; i < request.Count; i++)
        {
            copy.Append(request[i]);
            QueuedBytes += request[i].Length;
        }

        _commands.Add((command, copy));
    }

    public void Dispose()
    {
        foreach (var (_, request) in _commands)
        {
            request.Dispose();
        }

        _commands.Clear();
    }
}
