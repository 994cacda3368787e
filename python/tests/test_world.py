"""lidarsim.load, WorldError and World.scan / scan_batch against the lidarsim program and each other."""

import json
import math
import subprocess

import numpy as np
import pytest

import lidarsim
from conftest import ROOT, world_path

MALFORMED = ROOT / "tests" / "data" / "malformed"


def test_load_reports_the_world():
    world = lidarsim.load(world_path("rldemo"))
    assert world.name == "rldemo"
    assert world.counts["targets"] == 40 and world.counts["food"] == 20 and world.counts["poison"] == 20
    assert world.lidar["beams"] == 9 and world.lidar["range"] == 3.0
    assert math.isclose(world.lidar["fov"], 120.0)
    assert world.robot_pose == pytest.approx((7.0, 1.0, 90.0))
    assert world.warnings == []
    assert "rldemo" in repr(world)


def test_world_error_is_exactly_what_check_prints(program):
    files = sorted(p for p in MALFORMED.iterdir() if p.suffix == ".json")
    assert len(files) > 20
    located = 0
    for path in files:
        check = subprocess.run([program, "check", str(path)], capture_output=True, text=True)
        assert check.returncode == 1, path
        with pytest.raises(lidarsim.WorldError) as caught:
            lidarsim.load(str(path))
        error = caught.value
        assert str(error) == check.stderr.strip().splitlines()[-1], path
        assert error.file == str(path)
        if error.line is not None:
            located += 1
            assert str(error).startswith(f"{path}:{error.line}:{error.column}: ")
        rebuilt = ": ".join(p for p in (error.json_path, error.reason) if p)
        assert str(error).endswith(rebuilt)
    assert located > 20


def test_world_error_attributes():
    with pytest.raises(lidarsim.WorldError) as caught:
        lidarsim.load(str(MALFORMED / "bad_kind.json"))
    e = caught.value
    assert (e.line, e.column, e.json_path) == (4, 32, "targets[0].kind")
    assert e.reason == 'expected "food" or "poison"'
    assert isinstance(e, ValueError)


def test_missing_file_and_bad_path_types(tmp_path):
    with pytest.raises(FileNotFoundError):
        lidarsim.load(str(tmp_path / "nope.json"))
    with pytest.raises(TypeError):
        lidarsim.load(3)
    with pytest.raises(lidarsim.WorldError, match="not a regular file"):
        lidarsim.load(str(tmp_path))


def scan_json(program, world, *args):
    out = subprocess.run([program, "scan", world, *args], capture_output=True, text=True, check=True)
    scan = json.loads(out.stdout)
    scan["ranges"] = [math.inf if r is None else r for r in scan["ranges"]]  # JSON has no infinity: null
    return scan


@pytest.mark.parametrize("name", ["default", "warehouse"])
def test_scan_equals_the_scan_command(program, name):
    world = lidarsim.load(world_path(name))
    for pose, extra in [((3.25, 2.5, 30.0), {}), ((5.0, 4.0, -120.0), {"beams": 90, "fov": 270, "range": 7.5})]:
        args = ["--pose", ",".join(repr(v) for v in pose)]
        for key, value in extra.items():
            args += [f"--{key}", str(value)]
        expected = scan_json(program, world_path(name), *args)
        scan = world.scan(pose, **extra)
        assert scan.ranges.tolist() == expected["ranges"]  # bit for bit (shortest round-trip text)
        assert scan.intensities.tolist() == expected["intensities"]
        assert [lidarsim.HIT_KINDS[k] if k else None for k in scan.kinds] == expected["hits"]
        assert scan.indices.tolist() == [-1 if i is None else i for i in expected["indices"]]
        for key in ("angle_min", "angle_max", "angle_increment", "range_min", "range_max", "scan_time"):
            assert getattr(scan, key) == expected[key], key
        assert np.isinf(scan.ranges).any() or name == "default"


def test_scan_with_noise_equals_the_scan_command(program):
    world = lidarsim.load(world_path("default"))
    expected = scan_json(program, world_path("default"), "--pose", "4,3,10", "--noise", "0.05", "--seed", "42")
    scan = world.scan((4, 3, 10), noise=0.05, seed=42)
    assert scan.ranges.tolist() == expected["ranges"]
    assert world.scan((4, 3, 10), noise=0.05, seed=43).ranges.tolist() != expected["ranges"]


def random_poses(world, count, seed=0):
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = world.bounds
    return np.column_stack(
        [rng.uniform(x0, x1, count), rng.uniform(y0, y1, count), rng.uniform(-180, 180, count)]
    )


def test_scan_repr_is_a_one_line_summary():
    # print(sim.scan) printed every array in full: hundreds of lines for one scan.
    world = lidarsim.load(world_path("rldemo"))
    scan = world.scan()
    returns = int(np.isfinite(scan.ranges).sum())
    assert repr(scan).startswith(f"<lidarsim.Scan 9 beams, {returns} returns") and "\n" not in repr(scan)
    assert "-60.0 .. 60.0 deg, range_max 3 m>" in repr(scan)
    batch = world.scan_batch(np.zeros((500, 3)) + [7.0, 1.0, 90.0], ranges_only=True)
    assert repr(batch).startswith("<lidarsim.ScanBatch 500 scans: 9 beams,") and len(repr(batch)) < 200


def test_scan_batch_rows_equal_single_scans():
    world = lidarsim.load(world_path("warehouse"))
    poses = random_poses(world, 25)
    batch = world.scan_batch(poses, beams=120, noise=0)  # the warehouse's lidar is noisy: rows differ by stream
    assert batch.ranges.shape == (25, 120) and batch.kinds.dtype == np.int8 and batch.indices.dtype == np.int32
    for k in range(0, 25, 6):
        single = world.scan(poses[k], beams=120, noise=0)
        assert np.array_equal(single.ranges, batch.ranges[k])
        assert np.array_equal(single.kinds, batch.kinds[k]) and np.array_equal(single.indices, batch.indices[k])
    noisy = world.scan_batch(poses[:3], beams=120, noise=0.1, seed=9)
    assert np.array_equal(noisy.ranges[0], world.scan(poses[0], beams=120, noise=0.1, seed=9).ranges)
    only = world.scan_batch(poses, beams=120, noise=0, ranges_only=True, dtype=np.float32)
    assert only.intensities is None and only.ranges.dtype == np.float32
    assert np.array_equal(only.ranges, batch.ranges.astype(np.float32))


def test_scan_batch_equals_the_scan_command_over_a_poses_file(program, tmp_path):
    world = lidarsim.load(world_path("warehouse"))  # a noisy lidar: the stream runs on from pose to pose
    poses = random_poses(world, 12, seed=4)
    path = tmp_path / "poses.txt"
    path.write_text("".join(f"{x!r} {y!r} {t!r}\n" for x, y, t in poses))
    out = subprocess.run([program, "scan", world_path("warehouse"), "--poses", str(path), "--beams", "64", "--seed",
                          "8"], capture_output=True, text=True, check=True)
    expected = [[math.inf if r is None else r for r in json.loads(line)["ranges"]] for line in out.stdout.splitlines()]
    batch = world.scan_batch(poses, beams=64, seed=8, threads=3)
    assert batch.ranges.tolist() == expected


def test_scan_batch_identical_for_any_thread_count():
    world = lidarsim.load(world_path("default"))
    poses = random_poses(world, 500, seed=3)
    runs = [world.scan_batch(poses, beams=200, noise=0.02, seed=5, threads=t) for t in (1, 2, 3, None)]
    for other in runs[1:]:
        assert np.array_equal(runs[0].ranges, other.ranges, equal_nan=True)
        assert np.array_equal(runs[0].intensities, other.intensities)
        assert np.array_equal(runs[0].indices, other.indices)


def test_scan_and_batch_refuse_bad_input():
    world = lidarsim.load(world_path("rldemo"))
    cases = [
        (lambda: world.scan((1, 2)), ValueError),
        (lambda: world.scan((1, float("nan"), 0)), ValueError),
        (lambda: world.scan((1, 2, 3), beams=0), ValueError),
        (lambda: world.scan((1, 2, 3), beams=2.5), TypeError),
        (lambda: world.scan((1, 2, 3), fov=400), ValueError),
        (lambda: world.scan((1, 2, 3), range=-1), ValueError),
        (lambda: world.scan((1, 2, 3), noise=float("inf")), ValueError),
        (lambda: world.scan((1, 2, 3), seed=-1), ValueError),
        (lambda: world.scan_batch(np.zeros((4, 2))), ValueError),
        (lambda: world.scan_batch(np.zeros((2, 3, 1))), ValueError),
        (lambda: world.scan_batch([[0, 0, "a"]]), TypeError),
        (lambda: world.scan_batch(np.array([[0, 0, 0], [1, np.inf, 0]])), ValueError),
        (lambda: world.scan_batch(np.zeros((2, 3)), threads=-1), ValueError),
    ]
    for call, error in cases:
        with pytest.raises(error):
            call()
    assert world.scan_batch(np.zeros((0, 3))).ranges.shape == (0, 9)


def test_load_reads_a_map_yaml(tmp_path):
    # A 20 x 20 pixel map at 0.1 m: a closed ring of occupied pixels around free space.
    pixels = [[0 if x in (0, 19) or y in (0, 19) else 254 for x in range(20)] for y in range(20)]
    rows = "\n".join(" ".join(map(str, row)) for row in pixels)
    (tmp_path / "room.pgm").write_text(f"P2\n20 20\n255\n{rows}\n")
    (tmp_path / "room.yaml").write_text(
        "image: room.pgm\nresolution: 0.1\norigin: [0.0, 0.0, 0.0]\nnegate: 0\n"
        "occupied_thresh: 0.65\nfree_thresh: 0.196\n"
    )
    world = lidarsim.load(tmp_path / "room.yaml")
    assert world.counts["segments"] >= 4
    scan = world.scan((1.0, 1.0, 0.0), beams=36)
    assert np.isfinite(scan.ranges).all() and (scan.ranges < 1.5).all() and (scan.kinds == 1).all()
