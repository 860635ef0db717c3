"""``python -m bench`` (``make bench``): every benchmark, each printing its goal and PASS or MISS.

The in-process ones always run (engine beside RLCard, an Act step by step, the round trip beside PokerKit, bot
advice, memory over a long run), and so do the hostile callers' one and the host under load (their own servers and
clients, no tool); the other server ones run when their load tools are installed (h2load for gRPC, wrk for REST).
"""

import shutil

from bench import act, advise, engine, host_load, hostile, memory, roundtrip

for name, run in (
    ("engine", engine.main),
    ("act", lambda: act.main([])),
    ("round trip", roundtrip.main),
    ("bot advice", advise.main),
):
    print(f"\n== {name}")
    run()
if shutil.which("h2load"):
    from bench import grpc_act

    print("\n== gRPC (bench.grpc_act)")
    grpc_act.main(["--rounds", "3"])
else:
    print("\n== gRPC: skipped (needs h2load: apt-get install nghttp2-client)")
if shutil.which("wrk"):
    from bench import rest_act

    print("\n== REST (bench.rest_act)")
    rest_act.main(["--rounds", "3", "--embedded", "inprocess"])
else:
    print("\n== REST: skipped (needs wrk: apt-get install wrk)")
print("\n== memory (bench.memory)")
memory.main([])
print("\n== hostile callers (bench.hostile)")
hostile.main([])
print("\n== the host under load (bench.host_load)")
host_load.main([])
