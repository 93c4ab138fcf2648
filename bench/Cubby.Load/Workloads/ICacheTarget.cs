namespace Cubby.Load.Workloads;

/// <summary>A way of talking to a server (a client library and its connection), handing out one caller per concurrent loop.</summary>
internal interface ICacheTarget : IDisposable
{
    ICacheCaller CreateCaller();
}
