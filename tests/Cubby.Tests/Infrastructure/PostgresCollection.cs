namespace Cubby.Tests.Infrastructure;

/// <summary>Test classes in this collection share one PostgreSQL server and run one after another.</summary>
[CollectionDefinition(Name)]
public sealed class PostgresCollection : ICollectionFixture<PostgresServer>
{
    public const string Name = "PostgreSQL";
}
