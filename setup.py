"""The build of `pip install .` (pyproject.toml): the project's CMake builds the module
tilesched._core (target tilesched_python, python/CMakeLists.txt), which is installed with the
package python/tilesched. TILESCHED_BUILD_DIR=DIR builds in that build tree (configured as it
is; scripts/ci_python.sh reuses build/), else in a fresh one under setuptools' build directory,
without the tests and benchmarks. The version is the CMake project's."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def project_version():
    cmake = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(tilesched VERSION ([0-9.]+)", cmake).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        given = os.environ.get("TILESCHED_BUILD_DIR")
        build = pathlib.Path(given or pathlib.Path(self.build_temp) / "cmake").resolve()
        if not (build / "CMakeCache.txt").exists():
            configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                         "-DTILESCHED_BUILD_TESTS=OFF", "-DTILESCHED_BUILD_BENCH=OFF",
                         "-DTILESCHED_PYTHON=ON", "-DPython3_EXECUTABLE=" + sys.executable]
            if shutil.which("ccache"):
                configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
            subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "tilesched_python", "-j",
                        str(os.cpu_count() or 1)], check=True)
        built = sorted((build / "python" / "tilesched").glob("_core*.so"))
        if not built:
            sys.exit("tilesched: the build made no python/tilesched/_core*.so in {} (is the "
                     "Python module on: TILESCHED_PYTHON, python3-dev, pybind11-dev?)".format(build))
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    version=project_version(),
    packages=["tilesched"],
    package_dir={"": "python"},
    ext_modules=[Extension("tilesched._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)
