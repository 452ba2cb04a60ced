// The thread's cached cuBLAS handle (kernels/base/cuda_handles.hpp).
#include "kernels/base/cuda_handles.hpp"

#include <map>

namespace kbench {

cublasHandle_t thread_cublas(cudaStream_t stream)
{
    // Never destroyed: at exit the CUDA runtime may be gone before a thread_local destructor.
    thread_local auto* handles = new std::map<int, cublasHandle_t>;
    int device = 0;
    KBENCH_CUDA_CHECK(cudaGetDevice(&device));
    cublasHandle_t& h = (*handles)[device];
    if (h == nullptr) KBENCH_CUBLAS_CHECK(cublasCreate(&h));
    KBENCH_CUBLAS_CHECK(cublasSetStream(h, stream));
    KBENCH_CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    return h;
}

cudaGraph_t add_while_node(cudaGraph_t graph, cudaGraphConditionalHandle& handle)
{
    KBENCH_CUDA_CHECK(
        cudaGraphConditionalHandleCreate(&handle, graph, 1, cudaGraphCondAssignDefault));
    cudaGraphNodeParams params{};
    params.type = cudaGraphNodeTypeConditional;
    params.conditional.handle = handle;
    params.conditional.type = cudaGraphCondTypeWhile;
    params.conditional.size = 1;
    cudaGraphNode_t node{};
    KBENCH_CUDA_CHECK(cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &params));
    return params.conditional.phGraph_out[0];
}

}  // namespace kbench
