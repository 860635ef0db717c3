"""``python -m bench`` (``make bench``): every benchmark, each printing its goal and PASS or MISS, then a summary.

The in-process ones always run (the engine beside RLCard and OpenSpiel, random play through the learning
environments, an Act step by step, the round trip beside PokerKit, bot advice, advice at every table size, the
best bot against the cautious one, memory over a long run), and so do the hostile callers' one and the host under
load, alone, beside a bare gRPC server of its protocol and on two processes (their own servers and clients, no
tool); the other server ones run when their load tools are installed (h2load for gRPC, wrk for REST). The run
ends with one table of every goal (:func:`bench.goals.summary`): the headline rows first, a bench that did not run
marked ``not run``.
"""

import shutil

from bench import (
    act,
    advise,
    best_vs_cautious,
    calls,
    engine,
    goals,
    grpc_floor,
    host_load,
    hostile,
    memory,
    processes,
    rl,
    roundtrip,
    table_sizes,
)

for name, run in (
    ("engine (bench.engine)", engine.main),
    ("Python calls per action (bench.calls)", calls.main),
    ("learning environments (bench.rl)", rl.main),
    ("act (bench.act)", lambda: act.main([])),
    ("round trip (bench.roundtrip)", roundtrip.main),
    ("bot advice (bench.advise)", advise.main),
    ("advice at every table size (bench.table_sizes)", lambda: table_sizes.main([])),
    ("best against cautious (bench.best_vs_cautious)", lambda: best_vs_cautious.main([])),
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
print("\n== the host against a bare gRPC server of its protocol (bench.grpc_floor)")
grpc_floor.main(["--rounds", "1"])
print("\n== the host on two processes against one (bench.processes)")
processes.main(["--rounds", "1"])
print("\n== summary: every goal of this run")
print(goals.summary())
