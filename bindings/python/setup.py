"""pip install of the Python module fastconn, against an installed libfastconn found by pkg-config.

    /usr/bin/python3 -m pip install --no-build-isolation ./bindings/python

Needs nothing from PyPI: setuptools, wheel, numpy (its numpy.i is used in place) and swig come from
Debian (python3-setuptools python3-wheel python3-numpy python3-dev swig), and the C library from
`cmake --install` (its fastconn.pc; set PKG_CONFIG_PATH=<prefix>/lib/pkgconfig for a prefix that
pkg-config does not search). --no-build-isolation keeps pip from fetching setuptools into a fresh
environment (there is no pyproject.toml, so Debian's pip 23 builds without isolation anyway).

The SWIG wrapper is generated into the build folder (not beside fastconn.i), and the extension
gets an RPATH to the library's folder, so a library installed outside the loader's paths loads
without LD_LIBRARY_PATH. The sample data (fastconn/data) is installed with the package.
"""

import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


def pkg_config(*args):
    """pkg-config's answer about fastconn, or a SystemExit saying how to make it findable."""
    command = ["pkg-config", *args, "fastconn"]
    try:
        result = subprocess.run(command, capture_output=True, text=True)
    except FileNotFoundError:
        sys.exit("fastconn's Python module needs pkg-config to find the C library (Debian: apt-get install pkg-config)")
    if result.returncode != 0:
        sys.exit("pkg-config does not find fastconn (" + (result.stderr.strip() or "no fastconn.pc") + "). Install the "
                 "C library first (cmake --install build --prefix /usr/local), or point PKG_CONFIG_PATH at "
                 "<prefix>/lib/pkgconfig of the prefix it was installed into.")
    return result.stdout.strip()


def numpy_include():
    try:
        import numpy
    except ImportError:
        sys.exit("fastconn's Python module is built with numpy (Debian: apt-get install python3-numpy); "
                 "with pip, pass --no-build-isolation so that the installed numpy is used")
    return numpy.get_include()


class BuildSwigExtension(build_ext):
    """build_ext that runs SWIG itself: -builtin -interface _fastconn (the C extension is the module
    fastconn._fastconn; the Python proxy SWIG also writes is not used), numpy.i from numpy's include
    folder, fastconn's headers from pkg-config, and the wrapper written into build_temp."""

    def swig_sources(self, sources, extension):
        interfaces = [s for s in sources if s.endswith(".i")]
        others = [s for s in sources if not s.endswith(".i")]
        swig = shutil.which("swig4.0") or shutil.which("swig")
        if swig is None:
            sys.exit("fastconn's Python module needs SWIG 4 (Debian: apt-get install swig)")
        numpy_i_dir = os.path.join(numpy_include(), "numpy")
        if not os.path.exists(os.path.join(numpy_i_dir, "numpy.i")):
            sys.exit(f"numpy.i not found in {numpy_i_dir} (Debian's python3-numpy ships it)")
        includedir = pkg_config("--variable=includedir")
        os.makedirs(self.build_temp, exist_ok=True)
        wrappers = []
        for interface in interfaces:
            wrapper = os.path.join(self.build_temp, os.path.splitext(os.path.basename(interface))[0] + "_wrap.c")
            command = [swig, "-python", "-builtin", "-interface", "_fastconn", "-Wextra", f"-I{includedir}",
                       f"-I{numpy_i_dir}", "-outdir", self.build_temp, "-o", wrapper, interface]
            self.spawn(command)
            wrappers.append(wrapper)
        return others + wrappers


def extension():
    cflags = shlex.split(pkg_config("--cflags"))
    libs = shlex.split(pkg_config("--libs"))
    # FASTCONN_PYTHON_RPATH: the library's final folder when it is built against a DESTDIR copy
    libdir = os.environ.get("FASTCONN_PYTHON_RPATH") or os.path.normpath(pkg_config("--variable=libdir"))
    return Extension(
        "fastconn._fastconn",
        sources=["fastconn.i"],
        include_dirs=[numpy_include(), os.path.normpath(pkg_config("--variable=includedir"))],
        extra_compile_args=cflags,
        extra_link_args=libs,
        runtime_library_dirs=[libdir],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")])


os.chdir(HERE)  # setuptools wants paths relative to the folder of setup.py
setup(
    name="fastconn",
    version=pkg_config("--modversion"),
    description="Functional connectivity of fMRI time series (Pearson correlation, networks, sliding windows, "
                "modules) on the CPU or a CUDA GPU",
    license="BSD-3-Clause",
    python_requires=">=3.8",
    install_requires=["numpy", "scipy"],
    packages=["fastconn", "fastconn.data"],
    package_data={"fastconn.data": ["fmri_timeseries.csv", "fmri1.nii.gz", "COPYRIGHT-nitime"]},
    ext_modules=[extension()],
    cmdclass={"build_ext": BuildSwigExtension},
    zip_safe=False)
