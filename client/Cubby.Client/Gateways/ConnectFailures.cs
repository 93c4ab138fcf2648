namespace Cubby.Client.Gateways;

/// <summary>The last reason connecting to a gateway failed, for the error a waiting call gets.</summary>
internal sealed class ConnectFailures
{
    private volatile Exception? _last;

    public Exception? Last => _last;

    public void Record(Exception exception) => _last = exception;
}
