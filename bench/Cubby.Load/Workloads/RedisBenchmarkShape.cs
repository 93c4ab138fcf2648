namespace Cubby.Load.Workloads;

/// <summary>redis-benchmark's connections (-c), pipeline depth (-P) and request counts (-n) for a full and a quick run.</summary>
internal sealed record RedisBenchmarkShape(int Clients, int Pipeline, int Requests, int QuickRequests);
