namespace Cubby.Client;

/// <summary>How the client reaches the shard grains, decided when it is registered.</summary>
/// <param name="InProcess">
/// True: through the Orleans silo or client the process already has (no second client, no gateway hop); false: through
/// an Orleans client of its own, connected to silos' gateways.
/// </param>
internal sealed record ClientRuntime(bool InProcess)
{
    public static ClientRuntime Gateway { get; } = new(false);

    public static ClientRuntime Local { get; } = new(true);
}
