"""Run from a folder outside the repository against an installed fastconn (PYTHONPATH = SITE):
the package comes from SITE, its sample data loads, and every doctest of every module passes.
    python3 check_installed.py SITE"""

import doctest
import os
import pkgutil
import sys
import warnings

site = os.path.realpath(sys.argv[1])
import fastconn  # noqa: E402

assert os.path.realpath(fastconn.__file__).startswith(site + os.sep), f"fastconn came from {fastconn.__file__}, not {site}"
assert not os.path.exists(os.path.join(os.getcwd(), "examples")), "run this outside the repository"
for name in fastconn.data.FILES:
    path = fastconn.data.path(name)
    assert os.path.realpath(path).startswith(site + os.sep) and os.path.getsize(path) > 1000, path
x, regions = fastconn.data.timeseries()
assert x.shape == (250, 31) and len(regions) == 31
assert fastconn.data.scan().shape == (10, 10, 18, 40)

failed = attempted = 0
warnings.simplefilter("error", fastconn.RowvarWarning)  # the examples pass rowvar where it matters
modules = [fastconn] + [__import__(info.name, fromlist=["_"]) for info in
                        pkgutil.walk_packages(fastconn.__path__, "fastconn.") if not info.name.endswith("._fastconn")]
for module in modules:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    print(f"{module.__name__}: {result.attempted} examples, {result.failed} failed")
    failed += result.failed
    attempted += result.attempted
print(f"fastconn {fastconn.__version__} from {os.path.dirname(fastconn.__file__)}: {attempted} examples in "
      f"{len(modules)} modules, {failed} failed, run in {os.getcwd()}")
sys.exit(1 if failed or attempted < 50 else 0)
