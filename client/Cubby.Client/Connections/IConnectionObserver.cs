using Cubby.Cluster;

namespace Cubby.Client.Connections;

/// <summary>Hears what a connection learns about the cluster; called on the connection's reader thread, so it must not block.</summary>
internal interface IConnectionObserver
{
    /// <summary>The silo pushed a new cluster view (<c>cubby.view</c>).</summary>
    void OnView(ClusterView view);

    /// <summary>The connection was lost; its calls have failed and it is reconnecting.</summary>
    void OnLost(CubbyConnection connection);
}
