function info = fcCpuInfo()
%FCCPUINFO  What fastconn's CPU backend runs on this machine.
%   info = fcCpuInfo(): one line naming the pair-kernel path (avx512, avx2 or portable, chosen
%   from the CPU's features; FASTCONN_CPU_ISA in the environment asks for a lower one) and the
%   BLAS kernel OpenBLAS picked for the parts that still use it. In FP32 and FP64 every path
%   gives the same bits, and the same as the CUDA backend.
%
%   Example:
%     disp(fcCpuInfo())
%
%   See also fcVersion, fcHasCuda.
info = fastconn_mex('cpu_info');
end
