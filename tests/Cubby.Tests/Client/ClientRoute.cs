namespace Cubby.Tests.Client;

/// <summary>How a test's client reaches the silo.</summary>
public enum ClientRoute
{
    /// <summary>An app of its own: Cubby's Orleans client connected to the silo's gateway port.</summary>
    Gateway,

    /// <summary>Inside the silo's host (<c>AddCubbyClient()</c> after <c>AddCubbySilo</c>): the silo's own grain factory.</summary>
    CoHosted,
}

/// <summary>Theory data: every route.</summary>
public static class ClientRoutes
{
    public static TheoryData<ClientRoute> All => [ClientRoute.Gateway, ClientRoute.CoHosted];
}
