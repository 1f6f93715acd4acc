#!/usr/bin/env python3
"""Writes gltf-check/tests/assets/shelf.gltf: a small glTF 2.0 scene made
here (no third-party data; same license as the crate), for the end-to-end
test of ColliderConstructorHierarchy on a loaded glTF scene.

The scene: a root node "shelf" holding
- "board": a 2 x 0.1 x 1 box (a mesh of 12 triangles), at the origin;
- "books": a node at (0, 0.1, 0) rotated 30 degrees about y, with two
  children "book_a" and "book_b" sharing one icosahedron mesh (radius
  0.12) at (-0.5, 0.1, 0) and (0.5, 0.3, 0) — book_a rests into the board,
  book_b floats above it;
- "lamp": the icosahedron scaled 1 at (3, 0, 0), far from everything.
Run: python3 scripts/make_gltf.py
"""
import base64, json, math, os, struct

def box(hx, hy, hz):
    v = [(sx * hx, sy * hy, sz * hz) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    # Faces as quads of corner indices (bit 2: x, bit 1: y, bit 0: z).
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    t = []
    for a, b, c, d in quads:
        t += [(a, b, c), (a, c, d)]
    return v, t

def icosahedron(r):
    p = (1 + 5 ** 0.5) / 2
    raw = [(-1, p, 0), (1, p, 0), (-1, -p, 0), (1, -p, 0), (0, -1, p), (0, 1, p),
           (0, -1, -p), (0, 1, -p), (p, 0, -1), (p, 0, 1), (-p, 0, -1), (-p, 0, 1)]
    n = math.sqrt(1 + p * p)
    v = [(x / n * r, y / n * r, z / n * r) for x, y, z in raw]
    t = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
         (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    return v, t

meshes = [box(1.0, 0.05, 0.5), icosahedron(0.12)]
blob = b""
views, accessors, gl_meshes = [], [], []
for i, (v, t) in enumerate(meshes):
    pos = b"".join(struct.pack("<3f", *p) for p in v)
    idx = b"".join(struct.pack("<3H", *tri) for tri in t)
    for data, target in ((pos, 34962), (idx, 34963)):
        views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(data), "target": target})
        blob += data
        blob += b"\0" * (-len(blob) % 4)
    lo = [min(p[k] for p in v) for k in range(3)]
    hi = [max(p[k] for p in v) for k in range(3)]
    accessors.append({"bufferView": 2 * i, "componentType": 5126, "count": len(v), "type": "VEC3", "min": lo, "max": hi})
    accessors.append({"bufferView": 2 * i + 1, "componentType": 5123, "count": 3 * len(t), "type": "SCALAR"})
    gl_meshes.append({"name": ["board", "book"][i], "primitives": [{"attributes": {"POSITION": 2 * i}, "indices": 2 * i + 1, "mode": 4}]})

half = math.radians(30) / 2
doc = {
    "asset": {"version": "2.0", "generator": "bevy_icollide scripts/make_gltf.py"},
    "scene": 0,
    "scenes": [{"name": "shelf", "nodes": [0]}],
    "nodes": [
        {"name": "shelf", "children": [1, 2, 5]},
        {"name": "board", "mesh": 0},
        {"name": "books", "translation": [0, 0.1, 0], "rotation": [0, math.sin(half), 0, math.cos(half)], "children": [3, 4]},
        {"name": "book_a", "mesh": 1, "translation": [-0.5, -0.05, 0]},
        {"name": "book_b", "mesh": 1, "translation": [0.5, 0.3, 0]},
        {"name": "lamp", "mesh": 1, "translation": [3, 0, 0]},
    ],
    "meshes": gl_meshes,
    "accessors": accessors,
    "bufferViews": views,
    "buffers": [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
}
out = os.path.join(os.path.dirname(__file__), "..", "gltf-check", "tests", "assets", "shelf.gltf")
with open(out, "w") as f:
    json.dump(doc, f, indent=1)
print(out, os.path.getsize(out), "bytes")
