namespace Cubby.Load;

/// <summary>The servers compared, in the order their columns appear.</summary>
internal enum ServerKind
{
    Cubby,
    Redis,
    Garnet,
}
