namespace Cubby.AppHost.Resources;

/// <summary>A resource other resources connect to, by a connection string handed to them as <c>ConnectionStrings__{name}</c>.</summary>
internal interface IConnectionSource
{
    /// <summary>The connection string's name: <c>cubby</c> for the silos, as the client reads it.</summary>
    string ConnectionName { get; }

    string ConnectionString { get; }

    /// <summary>More settings a client of this resource needs besides the connection string, as environment variables.</summary>
    IEnumerable<KeyValuePair<string, string>> ClientEnvironment => [];
}
