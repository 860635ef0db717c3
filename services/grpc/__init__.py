"""The gRPC transport: the grpcio server with health and reflection. Thin: it parses nothing, hands each call's
bytes to the call core (:mod:`mazziere.services.core`) and writes what the core answers."""
