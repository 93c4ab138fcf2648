using System.Collections.Concurrent;

namespace Cubby.Silo.Protocol;

/// <summary>The connected clients, for CLIENT LIST and INFO.</summary>
internal sealed class ClientRegistry
{
    private readonly ConcurrentDictionary<long, ClientSession> _clients = new();
    private long _lastId;

    public int Count => _clients.Count;

    public IEnumerable<ClientSession> All => _clients.Values;

    /// <summary>The connection with client id <paramref name="id"/>, if it is still open.</summary>
    public ClientSession? Find(long id) => _clients.GetValueOrDefault(id);

    public long NextId() => Interlocked.Increment(ref _lastId);

    public void Add(ClientSession session) => _clients[session.Id] = session;

    public void Remove(ClientSession session) => _clients.TryRemove(session.Id, out _);
}
