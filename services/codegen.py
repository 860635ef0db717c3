"""Generate the Python protobuf and gRPC modules from ``protos/`` into ``services/gen``.

Run by ``make setup`` (``python -m services.codegen``) and by the image's build. The generated modules import
each other as ``services.gen.mazziere.v1``, so they need nothing on ``sys.path`` beyond the project itself.
Beside them goes ``comments.json``: the contract's leading comments by full name (from protoc's descriptor set
with source info), which the REST gateway's OpenAPI document uses as descriptions without ``protos/``.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

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
    if write_comments(protoc, args[1:3], files) != 0:
        return 1
    print(f"generated {len(files)} proto files into {OUT.relative_to(ROOT)}")
    return 0


def write_comments(protoc: Any, includes: list[str], files: list[str]) -> int:
    """``services/gen/comments.json``: every leading comment of the contract, by full name."""
    from google.protobuf import descriptor_pb2

    from services.gateway.comments import COMMENTS_FILE, comments_of

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.pb"
        if protoc.main(["protoc", *includes, "--include_source_info", f"--descriptor_set_out={out}", *files]) != 0:
            print("protoc failed (descriptor set)", file=sys.stderr)
            return 1
        fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    notes = comments_of(fds)
    (OUT / COMMENTS_FILE).write_text(json.dumps(notes, indent=0, sort_keys=True, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
