"""Sample data installed with fastconn, as R's system.file("extdata", ..., package = "fastconn").

Both files come from nitime (BSD-3; the notice is path("COPYRIGHT-nitime")):

- "fmri_timeseries.csv": resting-state ROI series, 250 time points (rows) of 31 regions
  (columns, named in the header line);
- "fmri1.nii.gz": a small 4-D BOLD scan, 10 x 10 x 18 voxels, 40 volumes (int16).

>>> import fastconn
>>> x, regions = fastconn.data.timeseries()        # (time, region): rowvar=False
>>> x.shape, x.dtype, regions[:3]
((250, 31), dtype('float64'), ['WM', 'Vent', 'Brain'])
>>> r = fastconn.corrcoef(x, rowvar=False)
>>> r.shape
(31, 31)
>>> scan = fastconn.data.scan()                     # (x, y, z, time), as nibabel's get_fdata() orders it
>>> scan.shape
(10, 10, 18, 40)
>>> voxels = scan.reshape(-1, scan.shape[-1])       # (voxel, time): one row per voxel
>>> degree, strength = fastconn.degree(voxels, threshold=0.5, rowvar=True)
>>> degree.shape
(1800,)
>>> import os
>>> os.path.basename(fastconn.data.path("fmri_timeseries.csv"))
'fmri_timeseries.csv'
"""

import csv
import gzip
import os

import numpy as np

__all__ = ["FILES", "path", "timeseries", "scan"]

_FOLDER = os.path.dirname(os.path.abspath(__file__))

#: the files shipped with the package
FILES = ("fmri_timeseries.csv", "fmri1.nii.gz", "COPYRIGHT-nitime")


def path(name="fmri_timeseries.csv"):
    """The absolute path of a bundled file (one of FILES), to read with any tool:
    numpy.loadtxt(path(), delimiter=",", skiprows=1), pandas.read_csv(path()) or
    nibabel.load(path("fmri1.nii.gz")).

    >>> import fastconn
    >>> fastconn.data.path("fmri1.nii.gz").endswith("fmri1.nii.gz")
    True
    """
    if name not in FILES:
        raise ValueError(f"no bundled file {name!r}; the files are {', '.join(FILES)}")
    return os.path.join(_FOLDER, name)


def timeseries():
    """(x, regions): the bundled ROI series as a float64 (250, 31) array, one column per region
    (so pass rowvar=False, or use x.T), and the 31 region names of the header line.

    >>> import fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> len(regions), regions[3]
    (31, 'LCau')
    """
    with open(path("fmri_timeseries.csv"), newline="") as f:
        regions = next(csv.reader(f))
        x = np.loadtxt(f, delimiter=",")
    return x, regions


# NIfTI-1 datatype codes -> numpy types (the ones a scan is stored in)
_NIFTI_TYPES = {2: np.uint8, 4: np.int16, 8: np.int32, 16: np.float32, 64: np.float64, 256: np.int8, 512: np.uint16,
                768: np.uint32}


def scan():
    """The bundled 4-D scan as a numpy array of shape (x, y, z, time) in its stored dtype (int16),
    read from the NIfTI-1 file without nibabel (no scaling: the file has none). For the geometry
    (affine, voxel sizes) read path("fmri1.nii.gz") with nibabel.

    >>> import fastconn
    >>> s = fastconn.data.scan()
    >>> s.dtype, int(s[5, 5, 9].std() > 0)
    (dtype('int16'), 1)
    """
    with gzip.open(path("fmri1.nii.gz"), "rb") as f:
        raw = f.read()
    order = "<" if np.frombuffer(raw, dtype="<i4", count=1)[0] == 348 else ">"
    header = np.frombuffer(raw, dtype=order + "i4", count=1)[0]
    if header != 348:
        raise ValueError("fmri1.nii.gz is not a NIfTI-1 file")
    dims = np.frombuffer(raw, dtype=order + "i2", count=8, offset=40)
    code = int(np.frombuffer(raw, dtype=order + "i2", count=1, offset=70)[0])
    offset = max(352, int(np.frombuffer(raw, dtype=order + "f4", count=1, offset=108)[0]))
    shape = tuple(int(d) for d in dims[1:1 + dims[0]])
    dtype = np.dtype(_NIFTI_TYPES[code]).newbyteorder(order)
    data = np.frombuffer(raw, dtype=dtype, count=int(np.prod(shape)), offset=offset)
    return data.reshape(shape, order="F").astype(dtype.newbyteorder("="))
