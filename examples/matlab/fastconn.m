function fastconn()
%FASTCONN  Functional connectivity of fMRI time series (fastconn, MATLAB and Octave).
%   Data are T x N matrices: rows are time points, columns are series (regions or voxels).
%   Every function takes its options as name/value pairs ('Precision', 'fp64', 'Backend', 'cpu',
%   'Threads', 2, 'MemoryLimit', 2^30, ...); help NAME gives each one's options and an example.
%
%   Correlations
%     fcCorr            N x N matrix like corr(X), or corr(X, Y)
%     fcCorrTriu        every pair once, in row (squareform) or column order; 'Values' int16 / half
%     fcTriuIndex       position of pairs (i, j) in that vector
%     fcTriuPair        the pairs at positions of that vector
%   Networks (without the N x N matrix)
%     fcGraph           sparse network: |r| >= p, r >= p, a density or the top k per series
%     fcDegree          degree and strength per series
%     fcGraphSave       write a network to a .fcg file (also read by R, Python, the C library)
%     fcGraphLoad       read a .fcg file (also the command line's `fastconn graph` output)
%   Dynamic connectivity (sliding windows)
%     fcWindowCorr      one window's correlation matrix (rectangular or Gaussian taper)
%     fcDfc             every window's triangle, W x N(N-1)/2
%     fcDfcWindows      the windows streamed one at a time to a function
%     fcDfcDegree       degree and strength per window
%     fcDfcGraphs       a sparse network per window
%     fcDfcSummary      mean and sd of each pair over the windows
%   Low rank
%     fcLowRank         optimal rank-l factor of the correlation matrix, exact error
%     fcDfcLowRank      the same per window
%   Modules
%     fcModularity      leading-eigenvector modules and Q
%     fcModularityScore Q of any partition
%     fcLeiden          Leiden modules (connected) and Q
%     fcMultilayer      modules over time (windows' networks): labels, Q, flexibility, allegiance
%   Centrality and rank correlation
%     fcEcm             fast eigenvector centrality of the correlation matrix (no N x N matrix)
%     fcEigenCentrality eigenvector centrality of a network
%     fcFisherZ         Fisher's z, atanh(r)
%     fcPartialCorrelation  partial correlation or precision, Ledoit-Wolf shrinkage
%     fcDfcEcm          fast eigenvector centrality of every sliding window
%     fcLfcd            local functional connectivity density on a voxel grid (no N x N matrix)
%     (Spearman's rho: 'Method', 'spearman' in fcCorr, fcCorrTriu, fcGraph, fcDegree, fcEcm)
%   Library
%     fcVersion         the library's version
%     fcHasCuda         CUDA built in, and a GPU usable now
%     fcCpuInfo         the CPU backend's pair-kernel path and BLAS kernel
%
%   All of them call the MEX gateway fastconn_mex (fastconn_mex.c, fastconn_mex_api.c, ...; the
%   README says how to build it). Example:
%     X = csvread(fullfile(fileparts(which('fastconn')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     R = fcCorr(X);
help('fastconn');
end
