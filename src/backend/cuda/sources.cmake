# Sources of the CUDA backend, included by the top-level CMakeLists.txt when CUDA is found:
# host code (C++) and the device kernels under kernels/ (CUDA). src/api/api_cuda.cpp, the entry
# points of fastconn_cuda.h, is built in every configuration (without CUDA they report why not).
target_sources(fastconn PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cuda_backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_pcc.cpp
  ${CMAKE_CURRENT_LIST_DIR}/band_pipeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/staging_ring.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_copy_pool.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_graph.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tc_operands.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_csr.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_density.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_topk.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph_profile.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_window.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_eigen_space.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_modules.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_centrality.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_partial.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_lfcd.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_leiden.cpp
  ${PROJECT_SOURCE_DIR}/kernels/triu_extract.cu
  ${PROJECT_SOURCE_DIR}/kernels/cross_finish.cu
  ${PROJECT_SOURCE_DIR}/kernels/edge_compact.cu
  ${PROJECT_SOURCE_DIR}/kernels/csr_build.cu
  ${PROJECT_SOURCE_DIR}/kernels/degree_accumulate.cu
  ${PROJECT_SOURCE_DIR}/kernels/fused_degree.cu
  ${PROJECT_SOURCE_DIR}/kernels/tc_degree.cu
  ${PROJECT_SOURCE_DIR}/kernels/tc_edges.cu
  ${PROJECT_SOURCE_DIR}/kernels/pair_products.cu
  ${PROJECT_SOURCE_DIR}/kernels/abs_histogram.cu
  ${PROJECT_SOURCE_DIR}/kernels/pair_sample.cu
  ${PROJECT_SOURCE_DIR}/kernels/row_topk.cu
  ${PROJECT_SOURCE_DIR}/kernels/window_normalize.cu
  ${PROJECT_SOURCE_DIR}/kernels/group_product.cu
  ${PROJECT_SOURCE_DIR}/kernels/eigen_space.cu
  ${PROJECT_SOURCE_DIR}/kernels/host_store.cu
  ${PROJECT_SOURCE_DIR}/kernels/series_products.cu
  ${PROJECT_SOURCE_DIR}/kernels/partial_matrix.cu
  ${PROJECT_SOURCE_DIR}/kernels/lfcd_grow.cu
  ${PROJECT_SOURCE_DIR}/kernels/leiden_sync.cu
  ${PROJECT_SOURCE_DIR}/kernels/leiden_levels.cu)
find_package(Threads REQUIRED)
target_link_libraries(fastconn PRIVATE CUDA::cudart CUDA::cublas CUDA::cusolver Threads::Threads)
# Kernels: optimized device code, no per-thread default stream (the backend passes its streams).
target_compile_options(fastconn PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-O3 --expt-relaxed-constexpr>)
