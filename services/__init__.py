"""Mazziere's adapters around the engine: the proto codec, sealing, the gRPC server, logs and metrics."""
