"""Citations for people (G2): every content result carries `cited_chunks`, each quoted text once.

Platform modules attach a `citation` to every object they found (a hit, a document, a vote). Before
a result leaves, `cite_chunks` moves those into one top-level list `cited_chunks` (uri, title, text,
requires_attribution, label) and leaves a `cited_chunk` index in each object, so a client maps an
inline citation to its chunk and the snippet is not repeated per hit. `cited_output_schema` makes the
same change to a tool's output schema, so the published schema describes what is sent.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from proxy.core.shapes import CitedChunk, schema_of
from proxy.results.sample import SAMPLE_FIELD

__all__ = ["CHUNKS", "CHUNK_INDEX", "cite_chunks", "cited_output_schema"]

CHUNKS = "cited_chunks"
CHUNK_INDEX = "cited_chunk"
_INDEX_SCHEMA = {"type": "integer", "minimum": 0, "description": f"Index of this object's entry in {CHUNKS}."}


def cite_chunks(data: Mapping[str, Any]) -> dict[str, Any]:
    """`data` with every `citation` replaced by a `cited_chunk` index into a new top-level `cited_chunks`."""
    chunks: list[CitedChunk] = []
    seen: dict[tuple[str, str, str], int] = {}

    def move(node: Any) -> Any:
        if isinstance(node, list):
            return [move(item) for item in node]
        if not isinstance(node, Mapping):
            return node
        out = {key: move(value) for key, value in node.items() if key != "citation"}
        cited = node.get("citation")
        if isinstance(cited, Mapping):
            key = (cited["uri"], cited["title"], cited["text"])
            if key not in seen:
                seen[key] = len(chunks)
                chunks.append({"uri": cited["uri"], "title": cited["title"], "text": cited["text"],
                               "requires_attribution": cited["requires_attribution"], "label": cited["label"]})
            out[CHUNK_INDEX] = seen[key]
        return out

    moved: dict[str, Any] = move(data)  # a mapping comes back as a dict
    moved[CHUNKS] = chunks
    return moved


def cited_output_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The output schema of a content tool as served: `citation` → `cited_chunk`, plus `cited_chunks`."""
    return _cited(json.dumps(schema, sort_keys=True))


@functools.lru_cache(maxsize=1024)
def _cited(schema_json: str) -> dict[str, Any]:
    out: dict[str, Any] = _replace(json.loads(schema_json))  # an object stays one
    out["properties"] = {**out.get("properties", {}),
                         CHUNKS: {"type": "array", "items": schema_of(CitedChunk),
                                  "description": "What to cite: each object's cited_chunk points here."},
                         SAMPLE_FIELD: {"type": "string",
                                        "description": "Set when the answer comes from the offline sample."}}
    out["required"] = [*out.get("required", []), CHUNKS]
    return out


def _replace(node: Any) -> Any:
    if isinstance(node, list):
        return [_replace(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _replace(value) for key, value in node.items()}
    props = out.get("properties")
    if isinstance(props, dict) and "citation" in props:
        out["properties"] = {(CHUNK_INDEX if k == "citation" else k): (_INDEX_SCHEMA if k == "citation" else v)
                             for k, v in props.items()}
        if isinstance(out.get("required"), list):
            out["required"] = [CHUNK_INDEX if r == "citation" else r for r in out["required"]]
    return out
