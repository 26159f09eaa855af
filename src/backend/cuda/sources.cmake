# Sources of the CUDA backend, included by the top-level CMakeLists.txt when CUDA is found.
target_sources(fastconn PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cuda_backend.cpp)
target_link_libraries(fastconn PRIVATE CUDA::cudart)
