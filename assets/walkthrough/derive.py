#!/usr/bin/env python3
"""Derives the walkthrough's models from the project's shared meshes.

Usage: python3 derive.py ../../../shared/data/meshes

Each output OBJ is one object, in the scene's own units (metres) and axes
(Drake: +Z up), moved so that its anchor (the centre of the bottom of its
bounding box) is the origin; the anchor's place in the room is written in the
file's header and in examples/walkthrough/scene.rs. Coordinates are rounded
to 10 micrometres. Groups merged into one object keep all their triangles.
"""
import os
import sys

SCENE = "drake_furnished_living_room_scene.obj"
TEA = "drake_tea_set_posed.obj"
TABLE = "drake_wooden_table_02_1k.obj"

# Where the table and the tea set go (the scene file places neither).
TABLE_AT = (0.9, 0.0, 0.0)
TEA_AT = (0.9, -0.02, 0.8005)  # tea set origin on the table top (0.799 m)


def read_groups(path):
    """{group: (vertices, faces)} with faces as 0-based indices per group."""
    groups, order, verts = {}, [], []
    cur = None
    for line in open(path):
        if line.startswith("o "):
            cur = line[2:].strip()
            if cur not in groups:
                groups[cur] = []
                order.append(cur)
        elif line.startswith("v "):
            verts.append(tuple(float(x) for x in line.split()[1:4]))
        elif line.startswith("f "):
            idx = [int(t.split("/")[0]) for t in line.split()[1:]]
            idx = [i - 1 if i > 0 else len(verts) + i for i in idx]
            for k in range(1, len(idx) - 1):
                groups.setdefault(cur, []).append((idx[0], idx[k], idx[k + 1]))
    return verts, groups, order


def write(out_dir, name, verts, faces, offset, source):
    used = sorted({i for f in faces for i in f})
    remap = {old: new for new, old in enumerate(used)}
    pts = [tuple(verts[i][k] + offset[k] for k in range(3)) for i in used]
    lo = [min(p[k] for p in pts) for k in range(3)]
    hi = [max(p[k] for p in pts) for k in range(3)]
    anchor = ((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2])
    with open(os.path.join(out_dir, name + ".obj"), "w") as f:
        f.write(f"# {name}: DERIVED from {source} (CC0 1.0, RobotLocomotion/models tutorials)\n")
        f.write("# metres, +Z up; origin = bottom centre of the bounding box\n")
        f.write("# anchor in the room: %.5f %.5f %.5f\n" % anchor)
        for p in pts:
            f.write("v %.5f %.5f %.5f\n" % tuple(round(p[k] - anchor[k], 5) + 0.0 for k in range(3)))
        for a, b, c in faces:
            f.write(f"f {remap[a] + 1} {remap[b] + 1} {remap[c] + 1}\n")
    print(f"{name}: {len(pts)} vertices, {len(faces)} triangles, anchor {anchor}")


def main(src):
    out = os.path.dirname(os.path.abspath(__file__))
    verts, groups, order = read_groups(os.path.join(src, SCENE))
    models = {}
    for g in order:
        models.setdefault(g.split("/")[0], []).extend(groups[g])
    for name in ["living_room", "cabinet", "bookshelves", "tall_cabinet", "sofa", "stool"]:
        write(out, name, verts, models[name], (0, 0, 0), SCENE)
    verts, groups, _ = read_groups(os.path.join(src, TABLE))
    write(out, "table", verts, sum(groups.values(), []), TABLE_AT, TABLE)
    verts, groups, _ = read_groups(os.path.join(src, TEA))
    tea = {
        "cup_1": ["tea_set_01_cup_small_01"],
        "saucer_1": ["tea_set_01_saucer_circular_04"],
        "teapot": ["tea_set_01_teapot_01", "tea_set_01_teapot_01_lid"],
    }
    for name, parts in tea.items():
        write(out, name, verts, sum((groups[p] for p in parts), []), TEA_AT, TEA)


if __name__ == "__main__":
    main(sys.argv[1])
