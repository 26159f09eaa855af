#!/usr/bin/env python3
"""The issue's own calls through the Python binding: fastconn.corrcoef and fastconn.dfc_triu (45
windows of 30 every 5) on the bundled (250, 31) series, medians in ms. Run from the repository
root with the build's module (build/python-binding/python); LD_LIBRARY_PATH=DIR picks another
libfastconn (bench/RESULTS-small-calls.md, "Python").
"""
import sys, time, statistics, subprocess, os
import numpy as np
sys.path.insert(0, "build/python-binding/python")
import fastconn
x = np.loadtxt("examples/data/fmri_timeseries.csv", delimiter=",", skiprows=1)
def t(f, reps):
    f(); ms = []
    for _ in range(reps):
        a = time.perf_counter(); f(); ms.append((time.perf_counter() - a) * 1e3)
    return statistics.median(ms)
c = t(lambda: fastconn.corrcoef(x, rowvar=False), 40)
d = t(lambda: fastconn.dfc_triu(x, 30, 5, rowvar=False), 10)
print("corrcoef %.3f ms  dfc_triu %.3f ms" % (c, d))
