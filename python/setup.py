"""Installs the lidarsim package with its C libraries: `pip install ./python` (offline, Debian's setuptools).

Building runs CMake on the source tree this folder sits in and copies liblidarsim.so (the core) and
liblidarsim_render.so (the renderer, when the SDL front end is built) into the package as lidarsim/_native/.
The build folder is $LIDARSIM_BUILD_DIR if set, else the tree's build/ when it is configured, else a private one;
only the two library targets are built.
"""

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LIBRARIES = ("liblidarsim.so", "liblidarsim_render.so")


class BuildWithLibraries(build_py):
    """build_py that also builds the C libraries and puts them into the package."""

    def run(self):
        super().run()
        if not (ROOT / "CMakeLists.txt").is_file():
            raise SystemExit(f"setup.py: {ROOT} is not the lidarsim source tree (no CMakeLists.txt)")
        build = os.environ.get("LIDARSIM_BUILD_DIR")
        if build is None:
            build = ROOT / "build" if (ROOT / "build" / "CMakeCache.txt").is_file() else Path(self.build_temp) / "cmake"
        build = Path(build).resolve()
        if not (build / "CMakeCache.txt").is_file():
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"])
        jobs = str(os.cpu_count() or 2)
        subprocess.check_call(["cmake", "--build", str(build), "-j", jobs, "--target", "lidarsim_shared"])
        targets = ["lidarsim_shared"]
        if "LS_BUILD_APP:BOOL=ON" in (build / "CMakeCache.txt").read_text():
            subprocess.check_call(["cmake", "--build", str(build), "-j", jobs, "--target", "lidarsim_render"])
            targets.append("lidarsim_render")
        native = Path(self.build_lib) / "lidarsim" / "_native"
        native.mkdir(parents=True, exist_ok=True)
        for name in LIBRARIES[: len(targets)]:
            # Copy the real file (the build may name a versioned file through symbolic links).
            shutil.copyfile((build / name).resolve(), native / name)


class BinaryDistribution(Distribution):
    """The package carries compiled libraries, so a wheel of it is specific to the platform."""

    def has_ext_modules(self):
        return True


setup(
    name="lidarsim",
    version="0.1.0",
    description="2D lidar robot simulator: worlds, scans, simulation and Gymnasium-style environments (C core)",
    packages=["lidarsim"],
    package_data={"lidarsim": ["py.typed"]},
    python_requires=">=3.9",
    install_requires=["numpy"],
    cmdclass={"build_py": BuildWithLibraries},
    distclass=BinaryDistribution,
)
