#!/usr/bin/env python3
"""Independent RFC 7946 reader for rivers.geojson (python3 standard library only).

Usage: check_geojson.py FILE [--min-rivers N] [--min-lakes N]
Checks: a FeatureCollection of Features; positions [lon, lat] or [lon, lat, elevation] with
lon in [-180, 180] and lat in [-90, 90]; every LineString (and MultiLineString part) has at
least 2 positions; every Polygon ring has at least 4 positions and is closed; exterior rings
counter-clockwise and holes clockwise (right-hand rule); river elevations do not rise along
the line by more than 0.05 m and per-point discharge never falls. Exit 1 with a list of
problems, 0 when clean.
"""
import json
import sys

RISE_TOLERANCE_M = 0.05


def ring_area(ring):
    return 0.5 * sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(ring, ring[1:]))


def main(argv):
    path = argv[1]
    min_rivers = int(argv[argv.index("--min-rivers") + 1]) if "--min-rivers" in argv else 0
    min_lakes = int(argv[argv.index("--min-lakes") + 1]) if "--min-lakes" in argv else 0
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    problems = []

    def position(p):
        if not isinstance(p, list) or len(p) not in (2, 3):
            problems.append("position of %r" % (p,))
            return
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in p):
            problems.append("position not numbers: %r" % (p,))
            return
        if not (-180 <= p[0] <= 180 and -90 <= p[1] <= 90):
            problems.append("position out of range: %r" % (p,))

    def line(coords):
        if not isinstance(coords, list) or len(coords) < 2:
            problems.append("line with fewer than 2 positions")
            return
        for p in coords:
            position(p)

    def polygon(rings):
        if not isinstance(rings, list) or not rings:
            problems.append("polygon without rings")
            return
        for i, ring in enumerate(rings):
            if len(ring) < 4:
                problems.append("ring with fewer than 4 positions")
                continue
            for p in ring:
                position(p)
            if ring[0] != ring[-1]:
                problems.append("ring not closed")
            area = ring_area(ring)
            if (i == 0 and area <= 0) or (i > 0 and area >= 0):
                problems.append("ring %d breaks the right-hand rule (area %g)" % (i, area))

    if doc.get("type") != "FeatureCollection":
        problems.append("not a FeatureCollection")
    rivers = lakes = 0
    for feature in doc.get("features", []):
        if feature.get("type") != "Feature" or "properties" not in feature:
            problems.append("not a Feature with properties")
            continue
        g = feature["geometry"]
        kind = feature["properties"].get("kind")
        if g["type"] == "LineString":
            line(g["coordinates"])
            parts = [g["coordinates"]]
        elif g["type"] == "MultiLineString":
            for part in g["coordinates"]:
                line(part)
            parts = g["coordinates"]
        elif g["type"] == "Polygon":
            polygon(g["coordinates"])
            parts = []
        elif g["type"] == "MultiPolygon":
            for p in g["coordinates"]:
                polygon(p)
            parts = []
        else:
            problems.append("unexpected geometry " + g["type"])
            continue
        if kind == "river":
            rivers += 1
            points = [p for part in parts for p in part]
            q = feature["properties"]["discharge_m3_s"]
            if len(q) != len(points):
                problems.append("river %s: %d discharges for %d points"
                                % (feature["properties"]["id"], len(q), len(points)))
            for a, b in zip(points, points[1:]):
                if len(a) == 3 and b[2] > a[2] + RISE_TOLERANCE_M:
                    problems.append("river %s rises %.3f m" % (feature["properties"]["id"],
                                                               b[2] - a[2]))
            for a, b in zip(q, q[1:]):
                if b < a * (1 - 1e-6):
                    problems.append("river %s: discharge falls" % feature["properties"]["id"])
        elif kind == "lake":
            lakes += 1
    if rivers < min_rivers:
        problems.append("%d rivers, expected at least %d" % (rivers, min_rivers))
    if lakes < min_lakes:
        problems.append("%d lakes, expected at least %d" % (lakes, min_lakes))
    for p in problems[:20]:
        print(p)
    print("%s: %d rivers, %d lakes, %d problems" % (path, rivers, lakes, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
