function Z = fcFisherZ(R)
%FCFISHERZ  Fisher's z transform of correlations, atanh(R).
%   Z = fcFisherZ(R) is atanh of every element of the real double or single array R (fcCorr,
%   fcCorrTriu, fcDfc, ... results), of the same class and shape: r = 1 and -1 give Inf and
%   -Inf (the diagonal of a correlation matrix becomes Inf), NaN stays NaN. A value outside
%   [-1, 1] is an error (fastconn:FC_ERR_INVALID_ARG) naming it.
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcFisherZ')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     z = fcFisherZ(fcCorrTriu(X, 'Precision', 'fp64'));
%     max(abs(z - atanh(fcCorrTriu(X, 'Precision', 'fp64'))))     % 0 or about 1e-16
%
%   See also fcCorr, fcCorrTriu.
Z = fastconn_mex('fisher_z', R);
end
