using System.Buffers;
using System.IO.Pipelines;
using Cubby.Resp;
using Cubby.Silo.Commands;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Protocol;

/// <summary>One client connection's state: protocol version, authentication, name, and its reply writer.</summary>
internal sealed class ClientSession
{
    private long _hits;
    private long _misses;

    public ClientSession(SiloRuntime silo, PipeWriter output, string remoteEndPoint)
    {
        Silo = silo;
        Writer = new RespWriter(output);
        Id = silo.Clients.NextId();
        RemoteEndPoint = remoteEndPoint;
        IsAuthenticated = silo.Options.Password is null;
        ConnectedAt = silo.Time.GetUtcNow();
    }

    public long Id { get; }

    public SiloRuntime Silo { get; }

    public RespWriter Writer { get; }

    public string RemoteEndPoint { get; }

    public DateTimeOffset ConnectedAt { get; }

    public string? Name { get; set; }

    /// <summary>The client library's name, from CLIENT SETINFO LIB-NAME.</summary>
    public string? LibraryName { get; set; }

    /// <summary>The client library's version, from CLIENT SETINFO LIB-VER.</summary>
    public string? LibraryVersion { get; set; }

    public bool IsAuthenticated { get; set; }

    /// <summary>Authenticated with the cluster secret: another silo, allowed the internal commands.</summary>
    public bool IsClusterPeer { get; set; }

    /// <summary>Set by QUIT: the connection closes once the pending replies are flushed.</summary>
    public bool CloseRequested { get; set; }

    public string? LastCommand { get; set; }

    /// <summary>A buffer for a reply that must be held back until a command knows its outcome (SET ... GET).</summary>
    public ArrayBufferWriter<byte> Scratch { get; } = new();

    public void Hit() => _hits++;

    public void Miss() => _misses++;

    /// <summary>Moves this session's lookup counts to the silo's statistics once per batch, not once per command.</summary>
    public void PublishStatistics(int commands)
    {
        Silo.Statistics.AddCommands(commands);
        Silo.Statistics.AddLookups(_hits, _misses);
        _hits = 0;
        _misses = 0;
    }

    /// <summary>
    /// Checks a key argument; on failure writes the error reply and returns false, so a handler just returns.
    /// </summary>
    public bool CheckKey(ReadOnlySpan<byte> key)
    {
        if (key.IsEmpty)
        {
            Writer.WriteError(ErrorText.EmptyKey);
            return false;
        }

        if (key.Length > Silo.Options.MaxKeyBytes)
        {
            Writer.WriteError(ErrorText.KeyTooLong(key.Length, Silo.Options.MaxKeyBytes));
            return false;
        }

        return true;
    }
}
