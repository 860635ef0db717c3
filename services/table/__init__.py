"""TableService: the stateless rules engine as a service. Its handlers (open and seal tokens, check seat keys,
call the engine, hand back the answer to be written), the token memo, and the one interface other parts call it
through, in this process or over a gRPC channel (:mod:`.client`)."""
