"""The HTTP transport on the REST port: FastAPI with the REST routes, Connect and gRPC-Web, the OpenAPI document,
the probes and the web table at ``/play``. Thin: it parses, hands the call to the core and writes its answer."""
