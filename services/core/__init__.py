"""The call core: admission by cost class, the worker pools, deadlines and cancellation, one stream runner, logs
and metrics. Every transport (gRPC, and HTTP: REST, Connect, gRPC-Web) parses a call, hands it to
:class:`~mazziere.services.core.dispatch.Dispatcher` and writes what it answers; none runs game work itself."""
