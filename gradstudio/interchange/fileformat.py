"""The ``.gstudio`` file format: JSON, checked by a JSON Schema, migrated on load.

Every way a file can be wrong — unreadable, not JSON, another format, a newer
version, failing the schema, an unknown node type, a connection the document
refuses — ends in one ``DocumentError(path, message)`` and leaves nothing changed.
See ``docs/file-format.md``.
"""

from __future__ import annotations

import functools
import json
import os
import re
import secrets
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gradstudio.catalogue import FUNCTION_TEMPLATE
from gradstudio.document.groups import Group, GroupError, check_fields, group_from_json, group_json
from gradstudio.document.model import Document
from gradstudio.document.values import EditError, check_setting
from gradstudio.function_args import named_arguments
from gradstudio.interchange.atomic import atomic_write
from gradstudio.interchange.quoting import printable, shorten
from gradstudio.interchange.trust import TrustStore, admit, content_hash

if TYPE_CHECKING:
    import jsonschema

FORMAT = "gradstudio"
VERSION = 4
EXTENSION = ".gstudio"
MAX_FILE_BYTES = 64 * 1024 * 1024


class DocumentError(Exception):
    """A document could not be read or written; the message names the file.

    The message is one line of bounded length whatever the file holds: control
    characters are escaped and a long quoted value is cut.
    """

    def __init__(self, path: str | os.PathLike[str], message: str) -> None:
        message = shorten(printable(message))
        super().__init__(f"{printable(str(path))}: {message}")
        self.path = str(path)
        self.message = message


# ------------------------------------------------------------------------ migrations


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 kept ``step``, ``x``, ``y`` on each node, edges as source/target
    objects, and the device at top level; version 2 has an ``order`` list, positions
    as pairs, edges as ``from``/``to`` pairs and a ``settings`` object."""
    nodes = data.get("nodes")
    edges = data.get("edges")
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise ValueError("'nodes' and 'edges' must be lists")
    out_nodes = []
    steps = []
    for i, n in enumerate(nodes):
        if not isinstance(n, dict):
            raise ValueError(f"node {i} is not an object")
        step = n.get("step", i)
        if not isinstance(step, int | float) or isinstance(step, bool):
            raise ValueError(f"node {i} has a step that is not a number")
        steps.append((step, i, n.get("id")))
        out_nodes.append(
            {
                "id": n.get("id"),
                "type": n.get("type"),
                "label": n.get("label", n.get("id")),
                "position": [n.get("x", 0.0), n.get("y", 0.0)],
                "params": n.get("params", {}),
            }
        )
    out_edges = []
    for i, e in enumerate(edges):
        if not isinstance(e, dict):
            raise ValueError(f"edge {i} is not an object")
        out_edges.append(
            {
                "from": [e.get("source"), e.get("source_port", "out")],
                "to": [e.get("target"), e.get("target_port")],
                "slot": e.get("slot", 0),
            }
        )
    return {
        "format": FORMAT,
        "version": 2,
        "meta": {"title": data.get("title", "")} if isinstance(data.get("title"), str) else {},
        "settings": {"device": data.get("device", "cpu")},
        "nodes": out_nodes,
        "edges": out_edges,
        "order": [node_id for _, _, node_id in sorted(steps, key=lambda s: (s[0], s[1]))],
    }


def _v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """Version 3 adds the top-level ``groups`` list; a version-2 document has none."""
    if "groups" in data:
        raise ValueError("a version-2 document cannot hold groups (at groups)")
    return {**data, "version": 3, "groups": []}


FUNCTION_TYPES = ("torch.autograd.Function", "autograd.Function")


def _v3_to_v4(data: dict[str, Any]) -> dict[str, Any]:
    """Version 4 gives a custom Function node a port per argument of its ``forward``
    (``args`` named, ``[{"name": "x"}, {"name": "z", "value": 4}]``); version 3 wired
    every tensor into one ``inputs`` port and held ``args`` as ``{"input": k}`` /
    ``{"value": v}``.  Each wire moves to the port of the argument it filled."""
    nodes, edges = data.get("nodes"), data.get("edges")
    if not isinstance(nodes, list) or not isinstance(edges, list):
        return {**data, "version": 4}  # the schema says what is wrong
    edges = list(edges)
    for i, n in enumerate(nodes):
        if not isinstance(n, dict) or n.get("type") not in FUNCTION_TYPES:
            continue
        params = n.get("params", {})
        if not isinstance(params, dict):
            continue
        old = params.get("args", [])
        if not isinstance(old, list) or not all(
            isinstance(a, dict) and (set(a) == {"input"} or set(a) == {"value"}) for a in old
        ):
            raise ValueError(
                "a version-3 custom Function's args are {'input': k} or {'value': v} "
                f"(at nodes/{i}/params/args)"
            )
        if any(not isinstance(a.get("input", 0), int) or a.get("input", 0) < 0 for a in old):
            raise ValueError(f"argument inputs are integers >= 0 (at nodes/{i}/params/args)")
        wired = sorted(
            (
                (e.get("slot", 0), k)
                for k, e in enumerate(edges)
                if isinstance(e, dict)
                and isinstance(e.get("to"), list)
                and e["to"] == [n.get("id"), "inputs"]
            ),
            key=lambda pair: (pair[0] if isinstance(pair[0], int) else 0, pair[1]),
        )
        source, class_name = (
            params.get("source", FUNCTION_TEMPLATE),
            params.get("class_name", "Func"),
        )
        if not isinstance(source, str) or not isinstance(class_name, str):
            continue
        named, where = named_arguments(old, len(wired), source, class_name)
        n = nodes[i] = {**n, "params": {**params, "args": named}}
        moved: dict[int, list[dict[str, Any]]] = {}
        for (_, k), ports in zip(wired, where, strict=True):
            moved[k] = [
                {**edges[k], "to": [n.get("id"), port], "slot": slot} for port, slot in ports
            ]
        edges = [e for k, old_edge in enumerate(edges) for e in moved.get(k, [old_edge])]
    return {**data, "version": 4, "nodes": nodes, "edges": edges}


#: ``MIGRATIONS[n]`` turns a version-n document into version n + 1.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: _v1_to_v2,
    2: _v2_to_v3,
    3: _v3_to_v4,
}


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(f"'version' must be a positive integer, not {version!r}")
    if version > VERSION:
        raise ValueError(
            f"it was saved by a newer GradStudio (format version {version}; "
            f"this version reads up to {VERSION}). Update GradStudio to open it"
        )
    while version < VERSION:
        data = MIGRATIONS[version](data)
        version += 1
    return data


# ----------------------------------------------------------------------------- schema


@functools.cache
def schema() -> dict[str, Any]:
    text = (
        resources.files("gradstudio.interchange")
        .joinpath("schema/gstudio.schema.json")
        .read_text("utf-8")
    )
    return json.loads(text)


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    """The full validator, imported on first use: only an invalid file needs it, and
    ``jsonschema`` (with ``referencing`` and ``attrs``) is a tenth of a second to import."""
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(schema())
    return jsonschema.Draft202012Validator(schema())


def _draft7(node: Any) -> Any:
    """The schema in draft-07 words (``prefixItems`` becomes tuple ``items``), the
    dialect fastjsonschema compiles; the meaning is unchanged."""
    if isinstance(node, list):
        return [_draft7(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _draft7(v) for k, v in node.items() if k not in ("$schema", "$id", "prefixItems")}
    if "prefixItems" in node:
        out["items"] = _draft7(node["prefixItems"])
    return out


@functools.cache
def _fast_check() -> Callable[[Any], Any]:
    """The schema compiled to Python: validates a 1,000-node file ~20x faster.

    Compiled (and ``fastjsonschema`` imported) on the first load, not at import, so
    the studio's window appears before any file is read.
    """
    import fastjsonschema

    return fastjsonschema.compile(_draft7(schema()))


#: Up to this many nodes and edges, jsonschema words the message (it weighs every
#: violation, at a third of a millisecond a node); beyond, the compiled check does.
THOROUGH_MESSAGE_ITEMS = 5_000


def _item_count(data: dict[str, Any]) -> int:
    lists = [data.get(k) for k in ("nodes", "edges", "groups")]
    count = sum(len(v) for v in lists if isinstance(v, list))
    groups = data.get("groups")
    if isinstance(groups, list):
        count += sum(
            len(g["members"])
            for g in groups
            if isinstance(g, dict) and isinstance(g.get("members"), list)
        )
    return count


def _schema_message(data: Any) -> str | None:
    """None when ``data`` matches the schema, else the most relevant violation.

    Valid documents (nearly all) pass the compiled check alone; only an invalid
    one is walked by jsonschema, whose ``best_match`` words the message (a large one
    keeps the compiled check's message: the walk would take seconds).
    """
    check = _fast_check()
    from fastjsonschema import JsonSchemaException  # loaded by _fast_check

    try:
        check(data)
        return None
    except JsonSchemaException as exc:
        if _item_count(data) > THOROUGH_MESSAGE_ITEMS:
            where = shorten("/".join(str(p) for p in getattr(exc, "path", [])[1:]), 80)
            message = str(getattr(exc, "message", exc))
            return f"{shorten(message.removeprefix('data.'), 200)} (at {where or 'top level'})"
    from jsonschema.exceptions import best_match

    error = best_match(_validator().iter_errors(data))
    if error is None:
        return None
    where = shorten("/".join(str(p) for p in error.absolute_path), 80)
    whole = repr(error.instance)
    message = error.message.replace(whole, shorten(whole, 60)) if len(whole) > 60 else error.message
    return f"{shorten(message, 200)} (at {where or 'top level'})"


#: UTF-8 cannot encode a surrogate, so only JSON's escapes can put one in a string.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _check_text(data: Any) -> None:
    """Refuse text that cannot be written back as UTF-8 (a lone surrogate, which JSON's
    escapes can smuggle in): the document could be shown but never saved or printed."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        near = exc.object[max(0, exc.start - 40) : exc.start]
        raise ValueError(
            f"a text in the document is not valid Unicode (a lone surrogate) after {near!r}"
        ) from None


# --------------------------------------------------------------------- reading/writing


def to_json(doc: Document) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "meta": dict(doc.meta),
        "settings": dict(doc.settings),
        "nodes": [
            {
                "id": n.id,
                "type": n.type_id,
                "label": n.label,
                "position": [n.x, n.y],
                "params": dict(n.params),
            }
            for n in doc.nodes()
        ],
        "edges": [
            {"from": [e.src, e.src_port], "to": [e.dst, e.dst_port], "slot": e.slot}
            for e in sorted(doc.edges(), key=lambda e: (doc.step_of(e.dst), e.dst_port, e.slot))
        ],
        "order": list(doc.order),
        "groups": [group_json(g, g.parent) for g in doc.groups.values()],
    }


#: Literal dtypes whose numbers are written as the shortest text that reads back to the
#: same value of that dtype (``0.0008443973``, not float64's ``0.0008443972910754383``).
_SHORT_FLOATS = {"float32": np.float32, "float16": np.float16}


def _data_text(data: list[Any], dtype: Any) -> str:
    """A literal's numbers on one line, each as short as its dtype allows: the values read
    back unchanged, and an imported model's weights take half the bytes."""
    kind = _SHORT_FLOATS.get(dtype)
    if kind is not None:
        try:
            array = np.asarray(data, dtype=kind)
        except (ValueError, TypeError, OverflowError):
            array = None
        if array is not None and array.dtype.kind == "f" and np.isfinite(array).all():
            data = array.astype(str).astype(np.float64).tolist()
    return json.dumps(data, separators=(",", ":"), allow_nan=False)


def dumps(doc: Document) -> str:
    """The document as indented JSON, a literal's ``data`` on one line of short numbers
    (spliced in where a placeholder no document text can know stands)."""
    data = to_json(doc)
    token = secrets.token_hex(8)
    texts: list[str] = []
    for node in data["nodes"]:
        params = node["params"]
        if isinstance(params.get("data"), list):
            texts.append(_data_text(params["data"], params.get("dtype")))
            node["params"] = {**params, "data": f"{token}:{len(texts) - 1}"}
    text = json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    if not texts:
        return text
    return re.sub(f'"{token}:(\\d+)"', lambda m: texts[int(m[1])], text)


def from_json(
    data: Any, path: str | os.PathLike[str] = "<memory>", *, check_text: bool = True
) -> Document:
    """A document from parsed JSON; ``DocumentError`` for anything wrong with it.

    The document is untrusted: these bytes came from somewhere, and only
    ``load_document`` asks the trust store whether the user vouched for them.
    ``check_text=False`` skips the search for lone surrogates (``loads`` knows
    when its text cannot hold one).
    """
    try:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError('this is not a GradStudio document (no "format": "gradstudio")')
        data = migrate(data)
        problem = _schema_message(data)
        if problem:
            raise ValueError(problem)
        if check_text:
            _check_text(data)
        return _build(data)
    except (ValueError, EditError) as exc:
        raise DocumentError(path, str(exc)) from None
    except OverflowError:
        raise DocumentError(path, "a number in the document is too large") from None
    except RecursionError:
        raise DocumentError(path, "the document is nested too deeply") from None


def _build(data: dict[str, Any]) -> Document:
    doc = Document()
    nodes = {n["id"]: n for n in data["nodes"]}
    if len(nodes) != len(data["nodes"]):
        raise ValueError("two nodes have the same id")
    order = data["order"]
    if set(order) != set(nodes) or len(order) != len(nodes):
        missing = sorted(set(nodes) - set(order)) or sorted(set(order) - set(nodes))
        raise ValueError(f"'order' must list every node once (check {missing[0]!r})")
    for node_id in order:
        n = nodes[node_id]
        try:
            type_id = doc.catalogue.resolve(n["type"])
        except KeyError:
            raise ValueError(f"node '{n['label']}' has unknown type {n['type']!r}") from None
        node = doc.new_node(type_id, params=n["params"], label=n["label"], node_id=node_id)
        if node.label != n["label"]:
            raise ValueError(f"two nodes are labelled {n['label']!r}")
        doc.add_node(node)
        doc.move_node(node_id, *n["position"])
    for e in data["edges"]:
        (src, src_port), (dst, dst_port) = e["from"], e["to"]
        doc.connect(src, src_port, dst, dst_port, e.get("slot", 0))
    for name, value in data.get("settings", {}).items():
        doc.set_setting(name, check_setting(name, value))
    for name, value in data.get("meta", {}).items():
        doc.set_meta(name, value)
    groups = _groups(data.get("groups", []), nodes)
    try:
        doc.add_groups(groups)
    except EditError as exc:
        raise ValueError(f"{exc} (at groups)") from None
    return doc


def _groups(items: list[dict[str, Any]], nodes: dict[str, Any]) -> list[Group]:
    """The file's groups, each fault named with its JSON path; the document then checks
    how they relate (nesting, a node in two groups)."""
    ids = {g["id"] for g in items}
    seen: set[str] = set()
    owner: dict[str, int] = {}
    out = []
    for i, g in enumerate(items):
        where = f"(at groups/{i})"
        if g["id"] in seen:
            raise ValueError(f"two groups have the id {g['id']!r} {where}")
        seen.add(g["id"])
        if g.get("parent") is not None and g["parent"] not in ids:
            raise ValueError(
                f"group {g['title']!r} is inside {g['parent']!r}, which is not a group "
                f"(at groups/{i}/parent)"
            )
        if len(set(g["members"])) != len(g["members"]):
            raise ValueError(f"group {g['title']!r} lists a node twice {where}")
        for k, member in enumerate(g["members"]):
            if member not in nodes:
                raise ValueError(
                    f"group {g['title']!r} holds {member!r}, which is not a node "
                    f"(at groups/{i}/members/{k})"
                )
            first = owner.setdefault(member, i)
            if first != i:
                raise ValueError(
                    f"node {member!r} is in two groups, {items[first]['title']!r} and "
                    f"{g['title']!r} (at groups/{i}/members/{k})"
                )
        try:
            out.append(check_fields(group_from_json(g)))
        except GroupError as exc:
            raise ValueError(f"{exc} {where}") from None
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def loads(data: bytes | str, path: str | os.PathLike[str] = "<memory>") -> Document:
    """A document from file bytes (untrusted, like ``from_json``)."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        parsed = json.loads(text, parse_constant=_reject_constant)
    except UnicodeDecodeError:
        raise DocumentError(
            path, "the file is not UTF-8 text (is it a GradStudio document?)"
        ) from None
    except RecursionError:
        raise DocumentError(path, "the document is nested too deeply") from None
    except ValueError as exc:
        raise DocumentError(path, f"the file is not valid JSON ({exc})") from None
    return from_json(parsed, path, check_text=_SURROGATE_ESCAPE.search(text) is not None)


def load_document(path: str | os.PathLike[str], trust_store: TrustStore | None = None) -> Document:
    """Read a document; its custom code may run only if the store trusts these bytes."""
    try:
        p = Path(path)
        if p.is_dir():
            raise DocumentError(path, "is a folder, not a document")
        if p.stat().st_size > MAX_FILE_BYTES:
            raise DocumentError(path, "the file is too large to be a GradStudio document")
        data = p.read_bytes()
    except FileNotFoundError:
        raise DocumentError(path, "no such file") from None
    except OSError as exc:
        raise DocumentError(path, f"cannot be read ({exc.strerror or exc})") from None
    doc = loads(data, path)
    doc.source_hash = content_hash(data)
    store = trust_store if trust_store is not None else TrustStore()
    return admit(doc, doc.has_code() and store.is_trusted(doc.source_hash))


def save_document(
    doc: Document, path: str | os.PathLike[str], trust_store: TrustStore | None = None
) -> None:
    """Write atomically; a trusted document's new bytes become trusted too."""
    try:
        data = dumps(doc).encode("utf-8")
    except UnicodeEncodeError:
        raise DocumentError(
            path, "cannot be written: a text in the graph is not valid Unicode"
        ) from None
    try:
        atomic_write(path, data)
    except OSError as exc:
        raise DocumentError(path, f"cannot be written ({exc.strerror or exc})") from None
    doc.source_hash = content_hash(data)
    if doc.trusted and doc.has_code():
        (trust_store if trust_store is not None else TrustStore()).trust(doc.source_hash)
