using System.Runtime.InteropServices;

namespace Cubby.AppHost;

/// <summary>
/// SIGINT (Ctrl+C) and SIGTERM: the first asks for a graceful stop, a second one for killing what is left at once.
/// The default handling (terminating the AppHost) is cancelled, so the AppHost outlives its children.
/// </summary>
internal sealed class ShutdownSignals : IDisposable
{
    private readonly ConsoleOutput _output;
    private readonly CancellationTokenSource _stopping = new();
    private readonly CancellationTokenSource _forced = new();
    private readonly PosixSignalRegistration[] _registrations;

    public ShutdownSignals(ConsoleOutput output)
    {
        _output = output;
        _registrations = [PosixSignalRegistration.Create(PosixSignal.SIGINT, Handle), PosixSignalRegistration.Create(PosixSignal.SIGTERM, Handle)];
    }

    /// <summary>Fires at the first signal.</summary>
    public CancellationToken Stopping => _stopping.Token;

    /// <summary>Fires at the second.</summary>
    public CancellationToken Forced => _forced.Token;

    public void Dispose()
    {
        foreach (var registration in _registrations)
        {
            registration.Dispose();
        }

        _stopping.Dispose();
        _forced.Dispose();
    }

    private void Handle(PosixSignalContext context)
    {
        context.Cancel = true;

        // CancelAsync: the stop sequence must not run on the signal's thread.
        if (!_stopping.IsCancellationRequested)
        {
            _output.Info($"{context.Signal}: stopping everything in order (send it again to kill what is left at once).");
            _ = _stopping.CancelAsync();
        }
        else
        {
            _output.Error($"{context.Signal} again: killing what is left.");
            _ = _forced.CancelAsync();
        }
    }
}
