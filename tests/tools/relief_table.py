#!/usr/bin/env python3
"""Prints the relief figures of planetgen runs (docs/fluvial.md, "Design decisions").

Each case runs `planetgen compare` (cloud and uniform rain on one terrain) or, with --generate,
`planetgen generate` (cloud rain only: no uniform-rain column), and reads the drainage section
of its metrics.json / summary.json. Usage:

  relief_table.py BINARY OUTDIR [--generate] [--case NAME:CONFIG[:key=value,...]]...

Without --case it runs the shipped configs and planets nobody tuned for.
"""
import argparse
import json
import os
import subprocess
import sys
import time

DEFAULT_CASES = [
    "default:configs/default.toml",
    "earthlike:configs/earthlike.toml",
    "smallworld:configs/smallworld.toml",
    "seed5_f64:configs/default.toml:planet.seed=5,planet.frequency=64",
    "seed9_f256_ocean0.3:configs/default.toml:planet.seed=9,planet.frequency=256,ocean.fraction=0.3",
    "seed3_ocean0.8:configs/default.toml:planet.seed=3,ocean.fraction=0.8",
    "r1000km:configs/default.toml:planet.seed=21,planet.radius_m=1000000",
    "r300km_f256:configs/smallworld.toml:planet.seed=4,planet.frequency=256",
    "seed5_f128:configs/default.toml:planet.seed=5,planet.frequency=128",
    "seed1_f64_ocean0.5:configs/default.toml:planet.seed=1,planet.frequency=64,ocean.fraction=0.5",
    "seed11_f64_r1000km:configs/default.toml:planet.seed=11,planet.frequency=64,"
    "planet.radius_m=1000000",
    "seed11_f128_r1000km:configs/default.toml:planet.seed=11,planet.frequency=128,"
    "planet.radius_m=1000000",
    "seed10_f64_ocean0.8_r2x:configs/default.toml:planet.seed=10,planet.frequency=64,"
    "ocean.fraction=0.8,planet.radius_m=12742000",
    "seed10_f128_ocean0.8_r2x:configs/default.toml:planet.seed=10,planet.frequency=128,"
    "ocean.fraction=0.8,planet.radius_m=12742000",
    "seed2_f128_ocean0.3:configs/default.toml:planet.seed=2,planet.frequency=128,ocean.fraction=0.3",
    "seed7_f128_ocean0.8:configs/default.toml:planet.seed=7,planet.frequency=128,ocean.fraction=0.8",
    "seed7_f256_ocean0.8:configs/default.toml:planet.seed=7,planet.frequency=256,ocean.fraction=0.8",
    "seed12_f128_r2x:configs/default.toml:planet.seed=12,planet.frequency=128,"
    "planet.radius_m=12742000",
    "seed8_f128_ocean0.3_r1000km:configs/default.toml:planet.seed=8,planet.frequency=128,"
    "ocean.fraction=0.3,planet.radius_m=1000000",
    "seed6_f256_ocean0.5:configs/default.toml:planet.seed=6,planet.frequency=256,ocean.fraction=0.5",
]

COLUMNS = [
    ("top10 <=20m", lambda d, u: d["highest_tenth_within_20m"], "{:.2f}"),
    ("top25 <=20m", lambda d, u: d["highest_quarter_within_20m"], "{:.2f}"),
    ("top10 depth x", lambda d, u: ratio(d["after"]["highest_tenth_channel_depth_m"],
                                         d["before"]["highest_tenth_channel_depth_m"]), "{:.1f}"),
    ("theta", lambda d, u: d["after"]["steepest_descent"]["slope_area_theta"], "{:.2f}"),
    ("R2", lambda d, u: d["after"]["steepest_descent"]["slope_area_r2"], "{:.2f}"),
    ("reach", lambda d, u: d["after"]["steepest_descent"]["reaches_sea_or_lake"], "{:.3f}"),
    ("pits/10k", lambda d, u: d["after"]["pits_per_10k_land_vertices"], "{:.2f}"),
    ("sinks/10k", lambda d, u: d["after"]["steepest_descent"]["sinks_per_10k_land_vertices"],
     "{:.2f}"),
    ("max/noise", lambda d, u: d["final_max_m"] / d["initial_max_m"], "{:.2f}"),
    ("coast", lambda d, u: d["coastline_moved"], "{:.4f}"),
    ("sea>100", lambda d, u: d["former_sea_raised_over_100m"], "{}"),
    ("wet/dry", lambda d, u: ratio(d["elevation_matched_quarters"]["wettest"]["mean_channel_depth_m"],
                                   d["elevation_matched_quarters"]["driest"]["mean_channel_depth_m"]),
     "{:.2f}"),
    ("unif w/d", lambda d, u: u, "{:.2f}"),
    ("channels", lambda d, u: d["after"]["steepest_descent"]["channel_vertices"], "{}"),
    ("straight", lambda d, u: d["after"]["steepest_descent"]["straight_run_share"], "{:.3f}"),
    ("longest", lambda d, u: d["after"]["steepest_descent"]["longest_straight_run"], "{}"),
]


def ratio(a, b):
    return a / b if b else float("inf")


def run_case(binary, outdir, case, generate):
    parts = case.split(":")
    name, config = parts[0], parts[1]
    sets = parts[2].split(",") if len(parts) > 2 and parts[2] else []
    out = os.path.join(outdir, name)
    cmd = [binary, "generate" if generate else "compare", "--config", config, "--out", out, "-q"]
    for s in sets:
        cmd += ["--set", s]
    t0 = time.time()
    subprocess.run(cmd, check=True)
    seconds = time.time() - t0
    if generate:
        summary = json.load(open(os.path.join(out, "summary.json")))
        return name, summary["drainage"], None, seconds, summary["timings"].get("fluvial_s")
    metrics = json.load(open(os.path.join(out, "metrics.json")))
    d = metrics["weather"]["rivers"]
    u = metrics["uniform"]["rivers"]["cloud_rain_quarters"]["elevation_matched"]["channel_depth_ratio"]
    return name, d, u, seconds, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("outdir")
    ap.add_argument("--generate", action="store_true")
    ap.add_argument("--case", action="append")
    ap.add_argument("--before", action="store_true", help="also print the noise terrain's row")
    args = ap.parse_args()
    cases = args.case or DEFAULT_CASES
    header = ["case"] + [c[0] for c in COLUMNS] + ["run s"]
    rows = []
    for case in cases:
        name, d, u, seconds, _ = run_case(args.binary, args.outdir, case, args.generate)
        row = [name]
        for _, get, fmt in COLUMNS:
            try:
                value = get(d, u)
                row.append("-" if value is None else fmt.format(value))
            except (KeyError, TypeError):
                row.append("-")
        row.append("{:.0f}".format(seconds))
        rows.append(row)
        if args.before:
            b = d["before"]
            sd = b["steepest_descent"]
            rows.append([name + " (noise)", "", "", "", "{:.2f}".format(sd["slope_area_theta"]),
                         "{:.2f}".format(sd["slope_area_r2"]),
                         "{:.3f}".format(sd["reaches_sea_or_lake"]),
                         "{:.2f}".format(b["pits_per_10k_land_vertices"]),
                         "{:.2f}".format(sd["sinks_per_10k_land_vertices"]), "", "", "", "", "",
                         "{}".format(sd["channel_vertices"]),
                         "{:.3f}".format(sd["straight_run_share"]),
                         "{}".format(sd["longest_straight_run"]), ""])
        print(" | ".join(row), file=sys.stderr, flush=True)
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
