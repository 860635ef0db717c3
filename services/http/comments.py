"""The contract's comments, for the OpenAPI descriptions.

Generated Python modules carry no comments, so ``make setup`` (``services/codegen.py``) also asks
``protoc`` for the descriptor set with source info and writes each leading comment, by full name, to
``services/gen/comments.json``, which ships inside the package (wheel and image alike). At run time the gateway
reads that file: it needs no ``protos/`` folder.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

COMMENTS_FILE = "comments.json"
"""Where ``services/codegen.py`` writes the comments, beside the generated modules."""


@cache
def proto_comments() -> dict[str, str]:
    """Leading comments by full name of every service, method, message, field, enum and enum value (empty if
    unavailable)."""
    try:
        text = (resources.files("mazziere.services.gen") / COMMENTS_FILE).read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        return {}
    data = json.loads(text)
    return {str(k): str(v) for k, v in data.items()}
