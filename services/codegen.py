"""Generate the Python protobuf and gRPC modules from ``protos/`` into ``services/gen``.

Run by ``make setup`` (``python -m services.codegen``). The generated modules import each other as
``services.gen.mazziere.v1``, so they need nothing on ``sys.path`` beyond the project itself.
"""

from __future__ import annotations

import re
import shutil
import sys
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
OUT = ROOT / "services" / "gen"


def main() -> int:
    from grpc_tools import protoc

    files = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    include = str(resources.files("grpc_tools") / "_proto")
    args = [
        "grpc_tools.protoc",
        f"-I{PROTOS}",
        f"-I{include}",
        f"--python_out={OUT}",
        f"--pyi_out={OUT}",
        f"--grpc_python_out={OUT}",
        *files,
    ]
    if protoc.main(args) != 0:
        print("protoc failed", file=sys.stderr)
        return 1
    for path in OUT.rglob("*.py*"):
        text = path.read_text()
        fixed = re.sub(r"^from mazziere\.", "from services.gen.mazziere.", text, flags=re.MULTILINE)
        fixed = re.sub(r"^import mazziere\.", "import services.gen.mazziere.", fixed, flags=re.MULTILINE)
        if fixed != text:
            path.write_text(fixed)
    for folder in [OUT, *(p for p in OUT.rglob("*") if p.is_dir())]:
        (folder / "__init__.py").touch()
    print(f"generated {len(files)} proto files into {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
