// Each test runs a whole AppHost (DCP, PostgreSQL, silos, a web app): two at once would starve each other on 2 cores.
[assembly: CollectionBehavior(DisableTestParallelization = true)]
