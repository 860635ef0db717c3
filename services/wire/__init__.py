"""The answers' bytes: engine values written as protobuf and as protobuf JSON, once, in the form each transport
sends (no message is built, parsed or serialized again on the way), and the reference codec they agree with."""
